import "server-only";
// Continuing a run that paused for approvals. Everything needed is in the database (the transcript, the
// approvals, the calls, the run), so any instance can do it, after a reload or a restart. One instance wins
// the claim (a conditional update that also takes the lease); a run someone asked to stop is never claimed.
import { loadConfig } from "@/lib/config";
import { detached, log } from "@/lib/log";
import { inSpan } from "@/lib/ops/tracing";
import { listRunApprovals } from "@/lib/db/approvals";
import { listMessages } from "@/lib/db/messages";
import { claimWaitingRun, findRun, listWaitingRuns } from "@/lib/db/runs";
import { findSessionById } from "@/lib/db/sessions";
import { getUserWithRoles } from "@/lib/db/users";
import { settleCall } from "./calls";
import { getConfiguredModel } from "./model";
import { prepareRun, runSteps, type TurnResult } from "./engine";
import { holdRun, INSTANCE_ID, leaseMs } from "./lease";
import { recordOutcome } from "./recorder";
import type { ModelChoice } from "./turn-setup";
import type { StoredToolCall } from "./transcript";

/**
 * A resumed run is traced as a turn of its own (the approval wait and the settled calls are its first spans), outside
 * whatever request or trace woke it (the event bus delivers in the context of the publisher).
 */
export function resumeRun(opts: { runId: string; model?: ModelChoice }): Promise<TurnResult | null> {
  return detached(() =>
    inSpan("toolgate.turn", { "toolgate.run_id": opts.runId, "toolgate.resumed": true }, () => resumeNow(opts), {
      root: true,
    }),
  );
}

async function resumeNow({ runId, model }: { runId: string; model?: ModelChoice }): Promise<TurnResult | null> {
  const run = await findRun({ runId });
  if (!run || run.status !== "waiting_approval" || run.stopRequestedAt) return null;
  const approvals = await listRunApprovals({ runId });
  // Still pending (or expired but not yet swept: the sweeper's approval.expired event brings it back here).
  if (approvals.some((a) => a.status === "pending")) return null;
  if (!(await claimWaitingRun({ runId, owner: INSTANCE_ID, leaseMs: leaseMs() }))) return null;
  const controller = new AbortController();
  const release = holdRun(runId, controller);
  try {
    const session = await findSessionById({ sessionId: run.sessionId });
    const owner = session ? await getUserWithRoles({ userId: session.ownerId }) : null;
    if (!session || !owner) {
      await recordOutcome({
        sessionId: run.sessionId,
        runId,
        run: { from: ["running"], to: "failed", error: "the session or its owner no longer exists", required: false },
      });
      return null;
    }
    let result: TurnResult;
    try {
      const turn = await prepareRun(
        // Nobody reads a stream for a resumed run: the chat page follows the session's events instead.
        {
          user: { id: owner.id, email: owner.email, roles: owner.roles, teamIds: owner.teamIds },
          model: model ?? getConfiguredModel({ id: session.model }),
          emit: () => undefined,
          workspaceRoot: loadConfig().workspaceRoot,
          abortSignal: controller.signal,
        },
        session.id,
        runId,
      );
      // Only this run's own lines: its assistant steps and the calls it left pending.
      const rows = (await listMessages({ sessionId: session.id })).filter((m) => m.runId === runId);
      const calls = new Map<string, StoredToolCall>();
      let steps = 0;
      for (const m of rows) {
        if (m.role !== "assistant") continue;
        steps += 1;
        for (const c of (m.parts as { toolCalls?: StoredToolCall[] } | null)?.toolCalls ?? [])
          calls.set(c.toolCallId, c);
      }
      for (const m of rows) {
        if (m.role !== "tool" || (m.parts as { status?: string } | null)?.status !== "pending") continue;
        const call = calls.get(m.toolCallId ?? "");
        const approval = approvals.find((a) => a.callId === m.toolCallId);
        if (!call || !approval) continue;
        await settleCall(turn, call, approval);
      }
      result = await runSteps(turn, steps);
    } catch (error) {
      log("error", "resume_failed", { runId, error: String(error) });
      await recordOutcome({
        sessionId: session.id,
        runId,
        run: { from: ["running"], to: "failed", error: String(error), owner: INSTANCE_ID, required: false },
      });
      return null;
    }
    if (result.status === "waiting_approval") void resumeWhenReady(runId, model);
    return result;
  } finally {
    release();
  }
}

/**
 * After a run paused: an owner may have decided before the run was marked waiting (the approval is visible as
 * soon as it is registered); that decision's resume found the run still running and did nothing. Check now.
 */
export function resumeWhenReady(runId: string, model?: ModelChoice): Promise<TurnResult | null> {
  return resumeRun({ runId, model }).catch((error) => {
    log("warn", "resume_check_failed", { runId, error: String(error) });
    return null;
  });
}

/** Resumes runs whose approvals are all settled (after a restart, or a decision made elsewhere). */
export async function resumeReadyRuns(): Promise<number> {
  let resumed = 0;
  for (const run of await listWaitingRuns()) {
    if (await resumeRun({ runId: run.id })) resumed += 1;
  }
  return resumed;
}
