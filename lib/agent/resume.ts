import "server-only";
// Continuing a run that paused for approvals. Everything needed is in the database (the transcript, the
// approvals, the run), so any instance can do it, after a reload or a restart. One instance wins the claim.
import type { UIMessageChunk } from "ai";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { listRunApprovals } from "@/lib/db/approvals";
import { listMessages } from "@/lib/db/messages";
import { claimWaitingRun, findRun, listWaitingRuns, updateRunStatus } from "@/lib/db/runs";
import { findSessionById } from "@/lib/db/sessions";
import { getUserWithRoles } from "@/lib/db/users";
import { publishEvent } from "@/lib/events/bus";
import { settleCall } from "./call-handler";
import { getConfiguredModel } from "./model";
import { runSteps, type TurnResult } from "./run-turn";
import { prepareTurn, type ModelChoice } from "./turn-setup";
import type { StoredToolCall } from "./transcript";

function notifySession(sessionId: string, runId: string, status: string) {
  return publishEvent({ type: "run.updated", scope: "session", sessionId, payload: { runId, status } }).catch((error) =>
    log("warn", "run_event_failed", { sessionId, runId, error: String(error) }),
  );
}

export async function resumeRun({ runId, model }: { runId: string; model?: ModelChoice }): Promise<TurnResult | null> {
  const run = await findRun({ runId });
  if (!run || run.status !== "waiting_approval") return null;
  const approvals = await listRunApprovals({ runId });
  const now = new Date();
  if (approvals.some((a) => a.status === "pending" && a.expiresAt > now)) return null;
  if (approvals.some((a) => a.status === "pending")) return null; // expired but not yet swept: the sweeper resumes it
  if (!(await claimWaitingRun({ runId }))) return null;
  const session = await findSessionById({ sessionId: run.sessionId });
  const owner = session ? await getUserWithRoles({ userId: session.ownerId }) : null;
  if (!session || !owner) {
    await updateRunStatus({ runId, status: "failed", error: "the session or its owner no longer exists" });
    return null;
  }
  try {
    const emit = (chunk: UIMessageChunk) => {
      // Nobody is reading a stream for a resumed run: the chat page follows session events instead.
      if (chunk.type === "finish-step") void notifySession(session.id, runId, "running");
    };
    const turn = await prepareTurn(
      { user: { id: owner.id, roles: owner.roles, teamIds: owner.teamIds }, model: model ?? getConfiguredModel(), emit, workspaceRoot: loadConfig().workspaceRoot },
      session.id,
      runId,
    );
    const rows = await listMessages({ sessionId: session.id });
    const calls = new Map<string, StoredToolCall>();
    let steps = 0;
    for (const m of rows) {
      if (m.runId !== runId || m.role !== "assistant") continue;
      steps += 1;
      for (const c of (m.parts as { toolCalls?: StoredToolCall[] } | null)?.toolCalls ?? []) calls.set(c.toolCallId, c);
    }
    for (const m of rows) {
      if (m.runId !== runId || m.role !== "tool" || (m.parts as { status?: string } | null)?.status !== "pending") continue;
      const call = calls.get(m.toolCallId ?? "");
      const approval = approvals.find((a) => a.callId === m.toolCallId);
      if (!call || !approval) continue;
      await settleCall(turn, call, approval);
    }
    await notifySession(session.id, runId, "running");
    const result = await runSteps(turn, steps);
    await notifySession(session.id, runId, result.status);
    return result;
  } catch (error) {
    log("error", "resume_failed", { runId, error: String(error) });
    await updateRunStatus({ runId, status: "failed", error: String(error) });
    await notifySession(session.id, runId, "failed");
    return null;
  }
}

/** Resumes runs whose approvals are all settled (after a restart, or a decision made elsewhere). */
export async function resumeReadyRuns(): Promise<number> {
  let resumed = 0;
  for (const run of await listWaitingRuns()) {
    if (await resumeRun({ runId: run.id })) resumed += 1;
  }
  return resumed;
}
