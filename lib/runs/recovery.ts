import "server-only";
// Abandoned runs: a run whose instance died (kill -9, a crash, a lost machine) stays `running` with a lease
// nobody renews. Any instance fails it once the lease has lapsed — at once, at start-up, when the lease names
// a process on this host that no longer exists. Failing it is one transaction: the run's state, a line for each
// call that never finished, a notice in the transcript, the session released, the events and an audit row.
// Commands it left behind on this host are killed (their process groups were recorded when they started).
import os from "node:os";
import { log } from "@/lib/log";
import { insertAuditRow } from "@/lib/db/audit";
import { transact } from "@/lib/db/client";
import { insertEvent, type NewEvent } from "@/lib/db/events";
import { appendMessageTx, updateToolMessage } from "@/lib/db/messages";
import { listRunningRuns, moveRun } from "@/lib/db/runs";
import { listOpenRunCalls, moveToolCall } from "@/lib/db/tool-calls";
import { eventsCommitted } from "@/lib/events/bus";
import { heldRunIds } from "./lease";
import { toolParts } from "./transcript";

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The lease owner is a dead process on this very host (its pid is gone): no need to wait for the lease. */
function ownerIsDeadHere(owner: string | null): boolean {
  if (!owner) return true;
  const [host, pid] = owner.split(":");
  const n = Number(pid);
  return host === os.hostname() && Number.isInteger(n) && n > 0 && n !== process.pid && !processAlive(n);
}

function killGroup(pid: number) {
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    return false; // gone already
  }
}

export async function failAbandonedRuns({ now = new Date() }: { now?: Date } = {}): Promise<string[]> {
  const mine = new Set(heldRunIds());
  const failed: string[] = [];
  for (const run of await listRunningRuns()) {
    if (mine.has(run.id)) continue;
    const lapsed = !run.leaseExpiresAt || run.leaseExpiresAt < now;
    if (!lapsed && !ownerIsDeadHere(run.leaseOwner)) continue;
    if (
      await failRun({
        runId: run.id,
        sessionId: run.sessionId,
        owner: run.leaseOwner,
        reason: lapsed ? "its lease lapsed" : "its server process is gone",
      })
    )
      failed.push(run.id);
  }
  return failed;
}

/** Fails a running run held by `owner` (null: held by nobody) in one transaction; false when it is not (any more). */
export async function failRun({
  runId,
  sessionId,
  owner,
  reason,
  kill = true,
}: {
  runId: string;
  sessionId: string;
  owner: string | null;
  reason: string;
  kill?: boolean;
}): Promise<boolean> {
  const calls = kill ? await listOpenRunCalls({ runId }) : [];
  // Kill first: a command still running must not outlive its run (only process groups started on this host).
  for (const call of calls) {
    if (call.status === "running" && call.pid && call.host === os.hostname() && killGroup(call.pid))
      log("warn", "abandoned_command_killed", { runId, callId: call.callId, pid: call.pid });
  }
  const done = await transact(async (tx) => {
    // Conditional on the same owner: an instance that renewed in the meantime keeps its run.
    if (
      !(await moveRun({
        tx,
        runId,
        sessionId,
        from: ["running"],
        to: "failed",
        error: `abandoned: ${reason}`,
        owner: owner ?? undefined,
      }))
    )
      return false;
    const events: NewEvent[] = [
      { type: "run.updated", scope: "session", sessionId, payload: { runId, status: "failed" } },
    ];
    for (const call of await listOpenRunCalls({ runId, tx })) {
      const to = call.status === "running" ? "failed" : "stopped";
      if (
        !(await moveToolCall({
          tx,
          sessionId,
          callId: call.callId,
          from: ["new", "pending", "approved", "running"],
          to,
          data: { finishedAt: new Date() },
        }))
      )
        continue;
      const output = {
        ok: false,
        error_code: "INTERRUPTED",
        tool_name: call.toolName,
        message:
          call.status === "running"
            ? "the server stopped while this call ran; it was ended"
            : "the server stopped before this call ran",
      };
      const content = JSON.stringify(output);
      if (
        (await updateToolMessage({
          tx,
          sessionId,
          toolCallId: call.callId,
          content,
          parts: toolParts("error", output),
        })) === 0
      ) {
        await appendMessageTx({
          tx,
          sessionId,
          message: {
            role: "tool",
            content,
            parts: toolParts("error", output),
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
        payload: { runId, callId: call.callId, toolName: call.toolName, status: to },
      });
    }
    await appendMessageTx({
      tx,
      sessionId,
      message: {
        role: "system",
        content:
          "This turn was interrupted: the server running it stopped. Nothing more of it will run; send your message again to continue.",
        parts: { notice: "interrupted" },
        runId,
      },
    });
    for (const event of events) await insertEvent({ ...event, tx });
    await insertAuditRow(tx, {
      action: "run.abandoned",
      sessionId,
      decision: "failed",
      details: { runId, owner, reason },
    });
    return true;
  });
  if (done) {
    log("warn", "run_abandoned", { runId, sessionId, owner, reason });
    await eventsCommitted();
  }
  return done;
}
