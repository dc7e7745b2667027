import { z } from "zod";
import { APPROVAL_DECISIONS } from "@/lib/policy";
import { GrantChoiceSchema } from "@/lib/approvals/grant-choice";

/** The confirmation page's POST: a token (from the e-mail) or none (the owner's session decides). */
export const LinkDecisionBody = z
  .object({
    token: z.string().min(1).max(2_000).optional(),
    decision: z.enum(APPROVAL_DECISIONS),
    reason: z.string().trim().max(2000).optional(),
    grant: GrantChoiceSchema.optional(),
  })
  .strict();
