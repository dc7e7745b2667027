import "server-only";
// Subagents: a run starts a child run with a task, in a child session linked to its own (parentId, depth + 1,
// the parent's mode, the same owner and agent). The child goes through the very same loop (runTurn, handed in
// by the engine so this file never imports it), so both gates, approvals, the transcript, the audit log and
// the lease apply to it as to any run; the subagent layer applies from its depth, and prepareTurn caps its
// tools by its ancestors' (lib/runs/parent-policy.ts). The parent gets the child's final answer as the tool
// result. Whether a child runs, and stopping it, go through the database, so they work from any instance.
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { appendAudit } from "@/lib/db/audit";
import { listMessages } from "@/lib/db/messages";
import { findActiveRun } from "@/lib/db/runs";
import { createSession, findOwnedSession, listChildSessions } from "@/lib/db/sessions";
import type { SubagentResult, ToolServices } from "@/lib/tools/context";
import { requestStop } from "./stop";
import type { Turn, TurnEnv } from "./turn-setup";
import { publicErrorMessage } from "@/lib/public-error";

// The policy engine enforces maxSpawnDepth (the schema caps it at 10); this is a backstop against a bug there.
const HARD_DEPTH_LIMIT = 10;
const TITLE_CHARS = 60;

type RunChild = (opts: TurnEnv & { sessionId: string; text?: string }) => Promise<{ status: string; error?: string }>;

export async function spawnSubagent(
  parent: Turn,
  runChild: RunChild,
  { task, label }: { task: string; label?: string },
): Promise<SubagentResult> {
  const depth = parent.session.depth + 1;
  if (depth > HARD_DEPTH_LIMIT)
    throw new AppError("LIMIT_EXCEEDED", `subagents may not nest deeper than ${HARD_DEPTH_LIMIT}`);
  const { env } = parent;
  const child = await createSession({
    ownerId: parent.session.ownerId,
    mode: parent.mode,
    title: (label?.trim() || `Subagent: ${task.trim()}`).slice(0, TITLE_CHARS),
    agentId: parent.session.agentId,
    model: parent.session.model,
    parentId: parent.session.id,
    depth,
  });
  await appendAudit({
    action: "subagent.spawned",
    actorId: env.user.id,
    sessionId: parent.session.id,
    details: { childSessionId: child.id, depth, mode: parent.mode, runId: parent.runId },
  });
  try {
    // Stopping the parent stops the child (its abort signal); `subagents stop` stops only the child.
    const result = await runChild({
      sessionId: child.id,
      text: task,
      user: env.user,
      model: env.model,
      // The parent's stream shows the spawn call and its result; the child's own transcript holds the rest.
      emit: () => undefined,
      abortSignal: env.abortSignal,
      hooks: parent.hooks,
      workspaceRoot: env.workspaceRoot,
      execLimits: env.execLimits,
      sandbox: env.sandbox,
    });
    const rows = await listMessages({ sessionId: child.id });
    const answer = [...rows].reverse().find((m) => m.role === "assistant" && m.content.trim() !== "")?.content ?? null;
    await appendAudit({
      action: "subagent.finished",
      actorId: env.user.id,
      sessionId: parent.session.id,
      details: { childSessionId: child.id, status: result.status },
    });
    return {
      ok: result.status === "completed",
      sessionId: child.id,
      status: result.status,
      answer: result.status === "completed" ? answer : null,
      ...(result.error ? { error: result.error } : {}),
    };
  } catch (error) {
    log("error", "subagent_failed", {
      parentSessionId: parent.session.id,
      childSessionId: child.id,
      error: String(error),
    });
    return {
      ok: false,
      sessionId: child.id,
      status: "failed",
      answer: null,
      error: publicErrorMessage(error, { event: "subagent_failed" }).message,
    };
  }
}

/** The subagent services a run's tools get: bound to that run, so a run only sees and stops its own children. */
export function subagentServices(
  parent: Turn,
  runChild: RunChild,
): Required<Pick<ToolServices, "spawnSubagent" | "listSubagents" | "stopSubagent">> {
  return {
    spawnSubagent: (input) => spawnSubagent(parent, runChild, input),
    async listSubagents() {
      const children = await listChildSessions({ parentId: parent.session.id, ownerId: parent.session.ownerId });
      return Promise.all(
        children.map(async (c) => ({
          sessionId: c.id,
          title: c.title,
          depth: c.depth,
          running: (await findActiveRun({ sessionId: c.id }))?.status === "running",
          createdAt: c.createdAt.toISOString(),
        })),
      );
    },
    async stopSubagent({ sessionId }) {
      const child = await findOwnedSession({ sessionId, ownerId: parent.session.ownerId });
      if (!child || child.parentId !== parent.session.id)
        throw new AppError("NOT_FOUND", "no such subagent of this session");
      const { stopped } = await requestStop({ sessionId, by: parent.env.user.id });
      if (stopped)
        await appendAudit({
          action: "subagent.stopped",
          actorId: parent.env.user.id,
          sessionId: parent.session.id,
          details: { childSessionId: sessionId },
        });
      return { stopped };
    },
  };
}
