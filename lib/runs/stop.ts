import "server-only";
// Stop, from any instance. The request is a column on the run (so it survives a lost event, and the holder's
// heartbeat sees it) plus a run.stop event (so the holder aborts at once). A run waiting for an approval is
// held by nobody: it is stopped right here, in one transaction — its open calls become "stopped", their
// pending approvals leave the inbox, the transcript says so, and the session is free again.
import { insertAuditRow } from "@/lib/db/audit";
import {
  STOPPED_REASON,
  expireApprovalRow,
  findApproval,
  listPendingRunApprovals,
  type ApprovalRow,
} from "@/lib/db/approvals";
import { transact, type Tx } from "@/lib/db/client";
import { insertEvent, type NewEvent } from "@/lib/db/events";
import { appendMessageTx, updateToolMessage } from "@/lib/db/messages";
import { findActiveRun, findRun, moveRun, requestRunStop } from "@/lib/db/runs";
import { listOpenRunCalls, moveToolCall } from "@/lib/db/tool-calls";
import { eventsCommitted, publishEvent } from "@/lib/events/bus";
import { abortHeldRun } from "./lease";
import { toolParts } from "./transcript";

const STOP_WAIT_MS = 15_000;
const POLL_MS = 50;

export async function requestStop({
  sessionId,
  by,
}: {
  sessionId: string;
  by: string;
}): Promise<{ stopped: boolean; runId?: string }> {
  const run = await findActiveRun({ sessionId });
  if (!run || !["running", "waiting_approval"].includes(run.status)) return { stopped: false };
  await requestRunStop({ runId: run.id, by });
  if (!abortHeldRun(run.id))
    await publishEvent({ type: "run.stop", scope: "session", sessionId, payload: { runId: run.id, by } });
  const deadline = Date.now() + STOP_WAIT_MS;
  for (;;) {
    const now = await findRun({ runId: run.id });
    if (!now || !["running", "waiting_approval"].includes(now.status)) return { stopped: true, runId: run.id };
    // Paused (before or while the stop was asked): nobody holds it, so it is stopped here.
    if (now.status === "waiting_approval") {
      await stopWaitingRun({ runId: run.id, sessionId, by });
      return { stopped: true, runId: run.id };
    }
    if (Date.now() > deadline) return { stopped: false, runId: run.id };
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

async function stopWaitingRun({ runId, sessionId, by }: { runId: string; sessionId: string; by: string }) {
  const stopped = await transact(async (tx) => {
    if (
      !(await moveRun({
        tx,
        runId,
        sessionId,
        from: ["waiting_approval"],
        to: "aborted",
        error: "stopped by the requester",
      }))
    )
      return false;
    const ended = await endOpenRequestsInTx(tx, {
      sessionId,
      runId,
      approvals: await listPendingRunApprovals({ runId, tx }),
      calls: await listOpenRunCalls({ runId, tx }),
      by,
      reason: STOPPED_REASON,
    });
    await insertEvent({ tx, type: "run.updated", scope: "session", sessionId, payload: { runId, status: "aborted" } });
    for (const event of ended.events) await insertEvent({ ...event, tx });
    await insertAuditRow(tx, {
      action: "run.stopped",
      actorId: by,
      sessionId,
      details: { runId, while: "waiting_approval", approvalsWithdrawn: ended.withdrawn.map((a) => a.id) },
    });
    return true;
  });
  if (stopped) await eventsCommitted();
  return stopped;
}

/**
 * The requester ends requests no owner has decided, in the caller's transaction: Stop while its turn waits, and
 * Withdraw on a deferred request (lib/runs/withdraw.ts). Each approval still pending leaves the inbox (expired, with
 * `reason`; a conditional update, so an owner deciding at the same moment wins or loses whole), and each call still
 * open is stopped with its line. The events are returned for the caller to write.
 */
export async function endOpenRequestsInTx(
  tx: Tx,
  {
    sessionId,
    runId,
    approvals,
    calls,
    by,
    reason,
  }: {
    sessionId: string;
    runId: string;
    approvals: Array<{ id: string }>;
    calls: Array<{ callId: string; toolName: string }>;
    by: string;
    reason: string;
  },
): Promise<{ events: NewEvent[]; withdrawn: ApprovalRow[]; stopped: string[] }> {
  const events: NewEvent[] = [];
  const withdrawn: ApprovalRow[] = [];
  for (const a of approvals) {
    if (!(await expireApprovalRow({ tx, id: a.id, reason }))) continue;
    const row = (await findApproval({ id: a.id, tx }))!;
    withdrawn.push(row);
    events.push({
      type: "approval.expired",
      scope: "approvals",
      sessionId,
      payload: {
        id: row.id,
        runId: row.runId,
        sessionId,
        toolName: row.toolName,
        callId: row.callId,
        status: "expired",
        resolveReason: row.resolveReason,
        withdrawn: true,
      },
    });
  }
  const stopped: string[] = [];
  for (const call of calls) {
    if (
      !(await moveToolCall({
        tx,
        sessionId,
        callId: call.callId,
        from: ["new", "pending", "approved"],
        to: "stopped",
        data: { finishedAt: new Date(), decidedBy: by },
      }))
    )
      continue;
    stopped.push(call.callId);
    const output = {
      ok: false,
      error_code: "STOPPED",
      tool_name: call.toolName,
      message: "stopped by you before it ran",
    };
    if (
      (await updateToolMessage({
        tx,
        sessionId,
        toolCallId: call.callId,
        content: JSON.stringify(output),
        parts: toolParts("aborted", output),
      })) === 0
    ) {
      await appendMessageTx({
        tx,
        sessionId,
        message: {
          role: "tool",
          content: JSON.stringify(output),
          parts: toolParts("aborted", output),
          toolCallId: call.callId,
          toolName: call.toolName,
          runId,
        },
      });
    }
    events.push({
      type: "call.updated",
      scope: "session",
      sessionId,
      payload: { runId, callId: call.callId, toolName: call.toolName, status: "stopped" },
    });
  }
  return { events, withdrawn, stopped };
}
