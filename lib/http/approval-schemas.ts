import { z } from "zod";
import { APPROVAL_DECISIONS } from "@/lib/policy";
import { SessionIdSchema } from "./schemas";
import { GrantChoiceSchema } from "@/lib/approvals/grant-choice";

export const IdSchema = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, "not an id");

export const ListApprovalsQuery = z.object({ status: z.enum(["pending", "approved", "denied", "expired"]).optional(), limit: z.coerce.number().int().min(1).max(500).optional() }).strict();

export const DecisionBody = z
  .object({
    decision: z.enum(APPROVAL_DECISIONS),
    reason: z.string().trim().max(2000).optional(),
    /** allow-always only: for whom, how broad (exec prefix), how long. Defaults to the requester, exact argv, no expiry. */
    grant: GrantChoiceSchema.optional(),
  })
  .strict()
  .refine((b) => b.grant === undefined || b.decision === "allow-always", { message: "grant applies to allow-always only", path: ["grant"] });

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
