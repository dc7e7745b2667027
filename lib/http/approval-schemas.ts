import { z } from "zod";
import { APPROVAL_DECISIONS } from "@/lib/policy";
import { SessionIdSchema } from "./schemas";
import { GrantChoiceSchema } from "@/lib/approvals/grant-choice";
import { FILTERABLE_RISK_KINDS } from "@/lib/exec/risk-kinds";

export const IdSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "not an id");

/** A filter value: one line of ordinary text (no control characters). */
const FilterText = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^[^\p{Cc}]*$/u, "control characters are not allowed");

/** The inbox list: filters, text search, and a keyset cursor (the last id of the page before) for the next page. */
export const ListApprovalsQuery = z
  .object({
    /** "decided": approved, denied or expired. */
    status: z.enum(["pending", "approved", "denied", "expired", "decided"]).optional(),
    limit: z.coerce.number().int().min(1).max(500).optional(),
    cursor: IdSchema.optional(),
    requester: z.string().trim().toLowerCase().email().max(320).optional(),
    tool: FilterText.optional(),
    kind: z.enum(["exec", "tool"]).optional(),
    agent: FilterText.optional(),
    team: FilterText.optional(),
    q: FilterText.optional(),
    /** Risk cues, comma-separated, any of them ("destructive,network"). Not "first-use" (lib/exec/risk-kinds.ts). */
    risk: z
      .string()
      .max(200)
      .transform((s) => s.split(",").map((k) => k.trim()))
      .pipe(z.array(z.enum(FILTERABLE_RISK_KINDS)).min(1).max(FILTERABLE_RISK_KINDS.length))
      .optional(),
  })
  .strict()
  .transform(({ requester, tool, agent, team, risk, ...rest }) => ({
    ...rest,
    requesterEmail: requester,
    toolName: tool,
    agentId: agent,
    teamId: team,
    riskKinds: risk,
  }));

/** Bulk deny: up to a page of requests, one reason for all. (There is no bulk allow: each allow is read first.) */
export const BulkDenyBody = z
  .object({
    ids: z.array(IdSchema).min(1).max(100),
    reason: z.string().trim().max(2000).optional(),
  })
  .strict();

export const DecisionBody = z
  .object({
    decision: z.enum(APPROVAL_DECISIONS),
    reason: z.string().trim().max(2000).optional(),
    /** allow-always only: for whom, how broad (exec prefix), how long. Defaults to the requester, exact argv, no expiry. */
    grant: GrantChoiceSchema.optional(),
  })
  .strict()
  .refine((b) => b.grant === undefined || b.decision === "allow-always", {
    message: "grant applies to allow-always only",
    path: ["grant"],
  });

export const RequestApprovalBody = z
  .object({
    sessionId: SessionIdSchema,
    toolName: z.string().trim().min(1).max(200),
    callId: z.string().trim().min(1).max(200),
    args: z.record(z.string(), z.unknown()),
    reason: z.string().trim().max(2000).optional(),
  })
  .strict();

export const WaitQuery = z.object({ timeoutMs: z.coerce.number().int().min(0).max(60_000).default(25_000) }).strict();
