// An approval as the API answers it (GET /api/approvals, GET /api/approvals/:id; lib/approvals/views.ts builds it)
// and the inbox reads it (components/approvals). One definition for both: no server-only import here, the browser
// bundle imports this file. views.ts checks at compile time that what it builds, once JSON, has this shape.
import { z } from "zod";
import { GRANT_SCOPES } from "./grant-choice";

const Person = z.object({ id: z.string(), email: z.string().nullable(), name: z.string().nullable() });

export const APPROVAL_STATUSES = ["pending", "approved", "denied", "expired"] as const;
export const APPROVAL_OUTCOMES = [
  "pending",
  "allowed once",
  "allowed always",
  "denied",
  "expired",
  "withdrawn by the requester",
] as const;

/** What lib/exec stored of a command's parse: the executables it runs, or why it could not be read. */
const ExecAnalysis = z.object({
  ok: z.boolean().optional(),
  reason: z.string().optional(),
  segments: z.array(z.object({ executable: z.string(), argv: z.array(z.string()) })).optional(),
});

export const ApprovalViewSchema = z.object({
  id: z.string(),
  kind: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  decision: z.string().nullable(),
  sessionId: z.string(),
  /** The chat the request came from, by its title (records name chats, not ids). */
  sessionTitle: z.string().nullable(),
  requester: Person,
  /** An outside MCP client's name (its token's name) when the call came through /mcp; null for a chat's call. */
  client: z.string().nullable(),
  toolName: z.string(),
  callId: z.string(),
  args: z.unknown(),
  argsHash: z.string(),
  command: z.string().nullable(),
  analysis: ExecAnalysis.nullable(),
  /** Toolgate's words: why this call needs an owner. */
  reason: z.string(),
  /** The requester's words, unchecked: shown apart, marked as theirs. */
  requesterNote: z.string().nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  resolvedAt: z.string().nullable(),
  resolvedBy: Person.nullable(),
  resolveReason: z.string().nullable(),
  /** How it ended, in words: a request whose requester stopped the run was withdrawn, not left to expire. */
  outcome: z.enum(APPROVAL_OUTCOMES),
  consumed: z.boolean(),
  /** Pending only: exactly what "allow always" would store, and the scopes it may be given. */
  allowAlways: z
    .object({
      rules: z.array(z.string()),
      refused: z.array(z.string()),
      scopes: z.array(z.enum(GRANT_SCOPES)),
      teams: z.array(z.string()),
      agentId: z.string().nullable(),
    })
    .nullable(),
  /** Labelled hints for the reader (destructive, network, outside the workspace, first use): lib/exec/risk.ts. */
  risks: z.array(z.object({ kind: z.string(), label: z.string(), detail: z.string() })),
  /** Routing (issue 31): the rule that routed it, who may decide it now, and allows given towards its quorum. */
  routing: z
    .object({
      rule: z.string(),
      deciderIds: z.array(z.string()),
      quorum: z.object({ given: z.number(), needed: z.number() }),
      escalated: z.boolean(),
    })
    .nullable(),
  /** In a list only: long arguments or a long command were cut (the detail has them whole). */
  truncated: z.literal(true).optional(),
});
export type ApprovalView = z.infer<typeof ApprovalViewSchema>;

/** GET /api/approvals/:id for an owner: the last few lines of the conversation that led to the request. */
export const ApprovalDetailViewSchema = ApprovalViewSchema.extend({
  context: z.array(z.object({ role: z.string(), content: z.string(), createdAt: z.string() })).optional(),
});
export type ApprovalDetailView = z.infer<typeof ApprovalDetailViewSchema>;

/** GET /api/approvals: one page of the inbox. */
export const ApprovalPageSchema = z.object({
  approvals: z.array(ApprovalViewSchema),
  nextCursor: z.string().nullable(),
  total: z.number(),
  totalCapped: z.boolean(),
});
export type ApprovalPage = z.infer<typeof ApprovalPageSchema>;
