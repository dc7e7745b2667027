import "server-only";
// Checks on the approval registration and decision paths, kept apart from the service so each is small and
// testable: a cap on what one request may carry (the owners' inbox shows it), one call id means one set of
// arguments, and four eyes (an owner does not decide their own request unless the setting allows it).
import { canonicalJson } from "@/lib/canonical-json";
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";

export function assertApprovalPayloadWithinCap(args: unknown, command?: string | null, reason?: string): void {
  const max = loadConfig().APPROVAL_MAX_ARGS_BYTES;
  const size =
    Buffer.byteLength(canonicalJson(args ?? null)) + Buffer.byteLength(command ?? "") + Buffer.byteLength(reason ?? "");
  if (size > max)
    throw new AppError("PAYLOAD_TOO_LARGE", `the approval request is ${size} bytes; at most ${max} are accepted`, {
      size,
      maxBytes: max,
    });
}

/** A call id already registered with other arguments is a conflict, never a silent reuse of the old ones. */
export function assertSameCallArguments(existing: { argsHash: string; id: string }, argsHash: string): void {
  if (existing.argsHash !== argsHash)
    throw new AppError("CONFLICT", "an approval for this call id exists with other arguments", {
      approvalId: existing.id,
    });
}

/** Four eyes: with APPROVALS_SELF_DECISION=deny (the default) the requester cannot decide their own request. */
export function assertMayDecide(approval: { requesterId: string }, deciderId: string): void {
  if (loadConfig().APPROVALS_SELF_DECISION === "deny" && approval.requesterId === deciderId)
    throw new AppError("FORBIDDEN", "four eyes: another owner must decide a request you made yourself");
}
