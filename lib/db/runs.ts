import "server-only";
import { getDb } from "./client";

export type RunStatus = "running" | "waiting_approval" | "completed" | "aborted" | "failed";

export async function findRun({ runId }: { runId: string }) {
  return getDb().agentRun.findUnique({ where: { id: runId } });
}

/** Claims a paused run for resuming: only one process wins (conditional update). */
export async function claimWaitingRun({ runId }: { runId: string }): Promise<boolean> {
  const r = await getDb().agentRun.updateMany({ where: { id: runId, status: "waiting_approval" }, data: { status: "running" } });
  return r.count === 1;
}

export async function listWaitingRuns() {
  return getDb().agentRun.findMany({ where: { status: "waiting_approval" }, orderBy: { createdAt: "asc" } });
}

export async function createRun({ sessionId }: { sessionId: string }) {
  return getDb().agentRun.create({ data: { sessionId, status: "running" } });
}

export async function updateRunStatus({ runId, status, error }: { runId: string; status: RunStatus; error?: string }) {
  await getDb().agentRun.update({ where: { id: runId }, data: { status, error: error ?? null } });
}

export async function findActiveRun({ sessionId }: { sessionId: string }) {
  return getDb().agentRun.findFirst({ where: { sessionId, status: { in: ["running", "waiting_approval"] } }, orderBy: { createdAt: "desc" } });
}
