import "server-only";
import { getDb } from "./client";

export type RunStatus = "running" | "waiting_approval" | "completed" | "aborted" | "failed";

export async function createRun({ sessionId }: { sessionId: string }) {
  return getDb().agentRun.create({ data: { sessionId, status: "running" } });
}

export async function updateRunStatus({ runId, status, error }: { runId: string; status: RunStatus; error?: string }) {
  await getDb().agentRun.update({ where: { id: runId }, data: { status, error: error ?? null } });
}

export async function findActiveRun({ sessionId }: { sessionId: string }) {
  return getDb().agentRun.findFirst({ where: { sessionId, status: { in: ["running", "waiting_approval"] } }, orderBy: { createdAt: "desc" } });
}
