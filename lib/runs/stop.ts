import "server-only";
// Stop, from any instance. The request is a column on the run (so it survives a lost event, and the holder's
// heartbeat sees it) plus a run.stop event (so the holder aborts at once). A run waiting for an approval is
// held by nobody: it is stopped right here, in one transaction — its open calls become "stopped", their
// pending approvals leave the inbox, the transcript says so, and the session is free again.
import { insertAuditRow } from "@/lib/db/audit";
import { expireApprovalRow, findApproval, listPendingRunApprovals } from "@/lib/db/approvals";
import { transact } from "@/lib/db/client";
import { insertEvent, type NewEvent } from "@/lib/db/events";
import { appendMessageTx, updateToolMessage } from "@/lib/db/messages";
import { findActiveRun, findRun, moveRun, requestRunStop } from "@/lib/db/runs";
import { listOpenRunCalls, moveToolCall } from "@/lib/db/tool-calls";
import { eventsCommitted, publishEvent } from "@/lib/events/bus";
import { abortHeldRun } from "./lease";
import { toolParts } from "./transcript";

const STOP_WAIT_MS = 15_000;
const POLL_MS = 50;

export async function requestStop({ sessionId, by }: { sessionId: string; by: string }): Promise<{ stopped: boolean; runId?: string }> {
  const run = await findActiveRun({ sessionId });
  if (!run || !["running", "waiting_approval"].includes(run.status)) return { stopped: false };
  await requestRunStop({ runId: run.id, by });
  if (!abortHeldRun(run.id)) await publishEvent({ type: "run.stop", scope: "session", sessionId, payload: { runId: run.id, by } });
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
    if (!(await moveRun({ tx, runId, sessionId, from: ["waiting_approval"], to: "aborted", error: "stopped by the requester" }))) return false;
    const events: NewEvent[] = [{ type: "run.updated", scope: "session", sessionId, payload: { runId, status: "aborted" } }];
    const expired: Array<{ id: string; toolName: string; callId: string }> = [];
    for (const a of await listPendingRunApprovals({ runId, tx })) {
      if (!(await expireApprovalRow({ tx, id: a.id, reason: "the requester stopped the run" }))) continue;
      const row = (await findApproval({ id: a.id, tx }))!;
      expired.push(row);
      events.push({ type: "approval.expired", scope: "approvals", sessionId, payload: { id: row.id, runId, sessionId, toolName: row.toolName, callId: row.callId, status: "expired", resolveReason: row.resolveReason } });
    }
    for (const call of await listOpenRunCalls({ runId, tx })) {
      if (!(await moveToolCall({ tx, sessionId, callId: call.callId, from: ["new", "pending", "approved"], to: "stopped", data: { finishedAt: new Date(), decidedBy: by } }))) continue;
      const output = { ok: false, error_code: "STOPPED", tool_name: call.toolName, message: "stopped by you before it ran" };
      if ((await updateToolMessage({ tx, sessionId, toolCallId: call.callId, content: JSON.stringify(output), parts: toolParts("aborted", output) })) === 0) {
        await appendMessageTx({ tx, sessionId, message: { role: "tool", content: JSON.stringify(output), parts: toolParts("aborted", output), toolCallId: call.callId, toolName: call.toolName, runId } });
      }
      events.push({ type: "call.updated", scope: "session", sessionId, payload: { runId, callId: call.callId, toolName: call.toolName, status: "stopped" } });
    }
    for (const event of events) await insertEvent({ ...event, tx });
    await insertAuditRow(tx, { action: "run.stopped", actorId: by, sessionId, details: { runId, while: "waiting_approval", approvalsWithdrawn: expired.map((a) => a.id) } });
    return true;
  });
  if (stopped) await eventsCommitted();
  return stopped;
}
