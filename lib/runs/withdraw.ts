import "server-only";
// Withdraw (issue 31): the member takes back a request of theirs that no owner has decided and whose turn no longer
// waits on it (deferred, lib/runs/deferred.ts). The same ending as Stop while the turn waits (endOpenRequestsInTx):
// the inbox reads "withdrawn by the requester" and drops the row, the call is stopped, and the same call made
// again asks anew. A decision made at the same moment is a conditional update on the same row: one of the two wins.
import { AppError } from "@/lib/errors";
import { insertAuditRow } from "@/lib/db/audit";
import { WITHDRAWN_REASON, findApproval } from "@/lib/db/approvals";
import { transact } from "@/lib/db/client";
import { insertEvent } from "@/lib/db/events";
import { findSessionById } from "@/lib/db/sessions";
import { findToolCall } from "@/lib/db/tool-calls";
import { eventsCommitted } from "@/lib/events/bus";
import { endOpenRequestsInTx } from "./stop";

export async function withdrawApproval({
  approvalId,
  userId,
}: {
  approvalId: string;
  userId: string;
}): Promise<{ id: string; status: "expired" }> {
  const approval = await findApproval({ id: approvalId });
  const session = approval ? await findSessionById({ sessionId: approval.sessionId }) : null;
  // Only the requester, in their own (not deleted) chat: anyone else, an owner too, learns nothing of it here. An
  // outside client's calls never defer (their wait is the request's), so their requests are refused below.
  if (
    !approval ||
    !session ||
    approval.requesterId !== userId ||
    session.ownerId !== userId ||
    session.deletedAt !== null
  ) {
    throw new AppError("NOT_FOUND", "no such request of yours");
  }
  if (approval.status !== "pending")
    throw new AppError("CONFLICT", `this request is already ${approval.status}`, { status: approval.status });
  const call = await findToolCall({ sessionId: session.id, callId: approval.callId });
  if (!call?.deferredAt)
    throw new AppError("CONFLICT", "the chat still waits on this request: press Stop to end it", {
      status: approval.status,
    });
  const withdrawn = await transact(async (tx) => {
    const ended = await endOpenRequestsInTx(tx, {
      sessionId: session.id,
      runId: call.runId,
      approvals: [approval],
      calls: [],
      by: userId,
      reason: WITHDRAWN_REASON,
    });
    // An owner decided (or it expired) first: nothing is withdrawn, and the call keeps that outcome.
    if (!ended.withdrawn.length) return false;
    const stopped = await endOpenRequestsInTx(tx, {
      sessionId: session.id,
      runId: call.runId,
      approvals: [],
      calls: [call],
      by: userId,
      reason: WITHDRAWN_REASON,
    });
    for (const event of [...ended.events, ...stopped.events]) await insertEvent({ ...event, tx });
    await insertAuditRow(tx, {
      action: "approval.withdrawn",
      actorId: userId,
      sessionId: session.id,
      toolName: approval.toolName,
      callId: approval.callId,
      decision: "expired",
      details: { approvalId, reason: WITHDRAWN_REASON },
    });
    return true;
  });
  if (!withdrawn) {
    const now = await findApproval({ id: approvalId });
    throw new AppError("CONFLICT", `this request is already ${now?.status ?? "gone"}`, { status: now?.status });
  }
  await eventsCommitted();
  return { id: approvalId, status: "expired" };
}
