import "server-only";
// Subagents: a run starts a child run with a task, in a child session linked to its own (parentId, depth + 1,
// the parent's mode, the same owner and agent). The child goes through the very same loop (runTurn), so both
// gates, approvals, the transcript and the audit log apply to it as to any run; the subagent layer applies
// from its depth, and prepareTurn caps its tools by its ancestors' (lib/agent/parent-policy.ts). The parent
// gets the child's final answer as the tool result.
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { appendAudit } from "@/lib/db/audit";
import { appendMessage, listMessages } from "@/lib/db/messages";
import { createSession, findOwnedSession, listChildSessions } from "@/lib/db/sessions";
import type { SubagentResult, ToolServices } from "@/lib/tools/context";
import { runTurn } from "./run-turn";
import type { Turn } from "./turn-setup";

// The policy engine enforces maxSpawnDepth (the schema caps it at 10); this is a backstop against a bug there.
const HARD_DEPTH_LIMIT = 10;
const TITLE_CHARS = 60;

const globalForChildren = globalThis as unknown as { toolgateSubagentRuns?: Map<string, AbortController> };
const running = (globalForChildren.toolgateSubagentRuns ??= new Map());

export async function spawnSubagent(parent: Turn, { task, label }: { task: string; label?: string }): Promise<SubagentResult> {
  const depth = parent.session.depth + 1;
  if (depth > HARD_DEPTH_LIMIT) throw new AppError("LIMIT_EXCEEDED", `subagents may not nest deeper than ${HARD_DEPTH_LIMIT}`);
  const { env } = parent;
  const child = await createSession({
    ownerId: parent.session.ownerId,
    mode: parent.mode,
    title: (label?.trim() || `Subagent: ${task.trim()}`).slice(0, TITLE_CHARS),
    agentId: parent.session.agentId,
    parentId: parent.session.id,
    depth,
  });
  await appendAudit({ action: "subagent.spawned", actorId: env.user.id, sessionId: parent.session.id, details: { childSessionId: child.id, depth, mode: parent.mode, runId: parent.runId } });
  await appendMessage({ sessionId: child.id, message: { role: "user", content: task } });
  // Stopping the parent stops the child; `subagents stop` stops only the child.
  const controller = new AbortController();
  const onParentAbort = () => controller.abort();
  env.abortSignal?.addEventListener("abort", onParentAbort, { once: true });
  if (env.abortSignal?.aborted) controller.abort();
  running.set(child.id, controller);
  try {
    const result = await runTurn({
      sessionId: child.id,
      user: env.user,
      model: env.model,
      // The parent's stream shows the spawn call and its result; the child's own transcript holds the rest.
      emit: () => undefined,
      abortSignal: controller.signal,
      hooks: parent.hooks,
      workspaceRoot: env.workspaceRoot,
      execLimits: env.execLimits,
      sandbox: env.sandbox,
    });
    const rows = await listMessages({ sessionId: child.id });
    const answer = [...rows].reverse().find((m) => m.role === "assistant" && m.content.trim() !== "")?.content ?? null;
    await appendAudit({ action: "subagent.finished", actorId: env.user.id, sessionId: parent.session.id, details: { childSessionId: child.id, status: result.status } });
    return { ok: result.status === "completed", sessionId: child.id, status: result.status, answer: result.status === "completed" ? answer : null, ...(result.error ? { error: result.error } : {}) };
  } catch (error) {
    log("error", "subagent_failed", { parentSessionId: parent.session.id, childSessionId: child.id, error: String(error) });
    return { ok: false, sessionId: child.id, status: "failed", answer: null, error: error instanceof Error ? error.message : String(error) };
  } finally {
    running.delete(child.id);
    env.abortSignal?.removeEventListener("abort", onParentAbort);
  }
}

/** The subagent services a run's tools get: bound to that run, so a run only sees and stops its own children. */
export function subagentServices(parent: Turn): Required<Pick<ToolServices, "spawnSubagent" | "listSubagents" | "stopSubagent">> {
  return {
    spawnSubagent: (input) => spawnSubagent(parent, input),
    async listSubagents() {
      const children = await listChildSessions({ parentId: parent.session.id, ownerId: parent.session.ownerId });
      return children.map((c) => ({ sessionId: c.id, title: c.title, depth: c.depth, running: running.has(c.id), createdAt: c.createdAt.toISOString() }));
    },
    async stopSubagent({ sessionId }) {
      const child = await findOwnedSession({ sessionId, ownerId: parent.session.ownerId });
      if (!child || child.parentId !== parent.session.id) throw new AppError("NOT_FOUND", "no such subagent of this session");
      const controller = running.get(sessionId);
      if (!controller) return { stopped: false };
      controller.abort();
      await appendAudit({ action: "subagent.stopped", actorId: parent.env.user.id, sessionId: parent.session.id, details: { childSessionId: sessionId } });
      return { stopped: true };
    },
  };
}
