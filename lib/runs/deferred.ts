import "server-only";
// A request that outlives its turn's wait (issue 31). A chat turn waits for an owner up to
// APPROVAL_TURN_WAIT_SECONDS; past it the turn ends pending instead of holding the chat: in one transaction the run
// completes (the session is free), each call still open on an approval is marked deferred and its line tells the
// model APPROVAL_PENDING, and the request stays in the inbox. An owner's decision no longer resumes that run (it is
// not waiting): it applies to the same call made again (lib/runs/calls.ts, settleRepeat), once.
import { loadConfig } from "@/lib/config";
import { insertAuditRow } from "@/lib/db/audit";
import { findApproval } from "@/lib/db/approvals";
import { transact } from "@/lib/db/client";
import { insertEvent, type NewEvent } from "@/lib/db/events";
import { listPendingToolLines, updateToolMessage } from "@/lib/db/messages";
import { listOverdueWaitingRuns, moveRun } from "@/lib/db/runs";
import { listRunCallsOnApproval, markCallsDeferred } from "@/lib/db/tool-calls";
import { eventsCommitted } from "@/lib/events/bus";
import { toolParts } from "./transcript";

/** What the model (and the card) get for a call whose request is still open when its turn ends. */
export function deferredOutput({
  toolName,
  approvalId,
  reason,
  expiresAt,
}: {
  toolName: string;
  approvalId: string;
  reason?: string | null;
  expiresAt?: Date | null;
}) {
  return {
    ok: false,
    pending: true,
    deferred: true,
    error_code: "APPROVAL_PENDING",
    tool_name: toolName,
    approvalId,
    reason: reason ?? undefined,
    expiresAt: expiresAt?.toISOString(),
    message: `approval ${approvalId} is still pending: no owner has decided yet, and this turn stopped waiting`,
    next_action:
      "Make the same call again (same tool, same arguments) after an owner decides: it runs once then, or is refused with the owner's reason.",
  };
}

/** Ends, as pending, every turn that has waited for an owner longer than APPROVAL_TURN_WAIT_SECONDS. */
export async function deferOverdueRuns(now = new Date()): Promise<number> {
  const waitMs = loadConfig().APPROVAL_TURN_WAIT_SECONDS * 1000;
  let deferred = 0;
  for (const run of await listOverdueWaitingRuns({ before: new Date(now.getTime() - waitMs) })) {
    if (await deferRun({ runId: run.id, sessionId: run.sessionId, waitingSince: run.updatedAt })) deferred += 1;
  }
  if (deferred) await eventsCommitted();
  return deferred;
}

/**
 * One run, in one transaction. The move from waiting_approval is conditional: a decision's resume (which claims
 * the run from the same state) or a Stop got there first, or this wins and they find nothing to do.
 */
async function deferRun({
  runId,
  sessionId,
  waitingSince,
}: {
  runId: string;
  sessionId: string;
  waitingSince: Date;
}): Promise<boolean> {
  return transact(async (tx) => {
    if (!(await moveRun({ tx, runId, sessionId, from: ["waiting_approval"], to: "completed" }))) return false;
    const events: NewEvent[] = [
      { type: "run.updated", scope: "session", sessionId, payload: { runId, status: "completed", deferred: true } },
    ];
    // A call of the run whose outcome the run already told the model (an owner's denial settled before the run
    // paused again on another call) keeps it: only those whose line still says pending are deferred.
    const open = await listRunCallsOnApproval({ tx, runId });
    const untold = await listPendingToolLines({ tx, sessionId, toolCallIds: open.map((c) => c.callId) });
    const calls = open.filter((c) => untold.has(c.callId));
    await markCallsDeferred({ tx, ids: calls.map((c) => c.id), at: new Date() });
    for (const call of calls) {
      const approval = await findApproval({ id: call.approvalId!, tx });
      const output = deferredOutput({
        toolName: call.toolName,
        approvalId: call.approvalId!,
        reason: approval?.reason,
        expiresAt: approval?.expiresAt,
      });
      await updateToolMessage({
        tx,
        sessionId,
        toolCallId: call.callId,
        content: JSON.stringify(output),
        parts: toolParts("pending", output),
      });
      events.push({
        type: "call.updated",
        scope: "session",
        sessionId,
        payload: { runId, callId: call.callId, toolName: call.toolName, status: call.status, deferred: true },
      });
    }
    for (const event of events) await insertEvent({ ...event, tx });
    await insertAuditRow(tx, {
      action: "run.deferred",
      sessionId,
      details: {
        runId,
        approvalIds: calls.map((c) => c.approvalId),
        waitedSeconds: Math.round((Date.now() - waitingSince.getTime()) / 1000),
      },
    });
    return true;
  });
}
