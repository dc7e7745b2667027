import "server-only";
// Bulk deny: the owner clears a flood of requests at once. Each request is decided on its own, with its own
// transaction, event and audit row (exactly as one decision in the inbox): one already decided or expired by the
// time the owner pressed the button is reported, not a reason to undo the others. There is no bulk allow: an allow
// runs something, and each request's arguments are read before it runs.
import { AppError } from "@/lib/errors";
import { decideApproval } from "./service";

export type BulkDenyOutcome = { denied: string[]; skipped: Array<{ id: string; reason: string }> };

export async function denyApprovals({
  ids,
  ownerId,
  reason,
}: {
  ids: string[];
  ownerId: string;
  reason?: string;
}): Promise<BulkDenyOutcome> {
  const outcome: BulkDenyOutcome = { denied: [], skipped: [] };
  // One after another: a flood of denials in parallel would hold as many write transactions at once.
  for (const id of new Set(ids)) {
    try {
      await decideApproval({ approvalId: id, ownerId, decision: "deny", reason });
      outcome.denied.push(id);
    } catch (error) {
      if (!(error instanceof AppError) || error.status >= 500) throw error;
      outcome.skipped.push({ id, reason: error.message });
    }
  }
  return outcome;
}
