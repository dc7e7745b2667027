import "server-only";
// Quorum for critical routing rules: two different owners must allow; any deny wins (a deny resolves at once,
// see decideApproval). The vote counter is a conditional update on the approval row, which serialises voters on
// one request, so two first allows racing on two instances make one "1 of 2" and one "2 of 2", never two "1 of 2".
import { AppError } from "@/lib/errors";
import type { Tx } from "@/lib/db/client";
import { countAllowVote, findApprovalVote, insertApprovalVote } from "@/lib/db/approvals";

export async function voteInTx(
  tx: Tx,
  {
    approval,
    ownerId,
    decision,
    via,
    now,
  }: { approval: { id: string; quorum: number }; ownerId: string; decision: string; via: string; now: Date },
): Promise<{ given: number; needed: number } | null> {
  const given = await countAllowVote({ tx, id: approval.id, now });
  if (given === null) return null;
  // Read after the row lock is held: a second allow by the same owner, racing or not, is seen here.
  if (await findApprovalVote({ tx, approvalId: approval.id, userId: ownerId }))
    throw new AppError(
      "FORBIDDEN",
      "you have already allowed this request: a second, different approver must allow it",
    );
  await insertApprovalVote({ tx, approvalId: approval.id, userId: ownerId, decision, via });
  return { given, needed: approval.quorum };
}
