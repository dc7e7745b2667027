// The owner's choice with "allow always" and the grant as owners see it: one definition each, shared by the
// API, the inbox, the grants page and the grant store.
import { z } from "zod";

export const GRANT_SCOPES = ["user", "team", "agent", "everyone"] as const;
export type GrantScope = (typeof GRANT_SCOPES)[number];

export const GrantChoiceSchema = z
  .object({
    scope: z.enum(GRANT_SCOPES).default("user"),
    /** With scope "team": which of the requester's teams. */
    teamId: z.string().trim().min(1).max(100).optional(),
    /** Exec only: keep the first N words of each part and allow any further arguments ("git status *"). */
    prefixWords: z.number().int().min(1).max(50).optional(),
    expiresInHours: z
      .number()
      .positive()
      .max(24 * 365)
      .optional(),
  })
  .strict();
export type GrantChoice = z.infer<typeof GrantChoiceSchema>;

export const GrantViewSchema = z.object({
  id: z.string(),
  kind: z.enum(["exec", "tool", "domain"]),
  /** Exec: the rule text ("git status", "ls *"); tool: the tool name. */
  rule: z.string(),
  scope: z.enum(GRANT_SCOPES),
  /** The user, team or agent id; null for everyone. */
  scopeId: z.string().nullable(),
  /** For scope "user": the user's e-mail. */
  scopeLabel: z.string().nullable(),
  createdBy: z.string().nullable(),
  createdAt: z.coerce.date(),
  expiresAt: z.coerce.date().nullable(),
  expired: z.boolean(),
  useCount: z.number().int(),
  lastUsedAt: z.coerce.date().nullable(),
  reason: z.string().nullable(),
});
export type GrantView = z.infer<typeof GrantViewSchema>;
