import "server-only";
// Tool calls keyed by (session, call id): the database's idempotency key. A call id is registered once
// (inserted in the transaction of its first outcome; the unique key refuses a second one, on any instance); moving a call to
// `running` is a conditional update from the one state that allows it, so a call executes at most once.
import { getDb, type Tx } from "./client";

/** "new" is never stored: an outcome "from new" inserts the row (the claim of the call id). */
export type CallStatus = "new" | "pending" | "approved" | "running" | "done" | "failed" | "stopped" | "denied" | "expired";
export const OPEN_CALL_STATUSES: CallStatus[] = ["new", "pending", "approved", "running"];

export type ToolCallRow = {
  id: string;
  sessionId: string;
  runId: string;
  callId: string;
  toolName: string;
  argsHash: string;
  status: string;
  approvalId: string | null;
  decidedBy: string | null;
  decidedAt: Date | null;
  pid: number | null;
  host: string | null;
  startedAt: Date | null;
  finishedAt: Date | null;
};

/** Claims a call id in the caller's transaction; throws the unique-key error (P2002) when it was seen before. */
export async function insertToolCall({ tx, sessionId, runId, callId, toolName, argsHash, status, data = {} }: {
  tx: Tx;
  sessionId: string;
  runId: string;
  callId: string;
  toolName: string;
  argsHash: string;
  status: CallStatus;
  data?: Parameters<typeof moveToolCall>[0]["data"];
}): Promise<boolean> {
  await tx.toolCall.create({ data: { sessionId, runId, callId, toolName, argsHash, status, ...data } });
  return true;
}

export async function findToolCall({ sessionId, callId, tx }: { sessionId: string; callId: string; tx?: Tx }): Promise<ToolCallRow | null> {
  return (tx ?? getDb()).toolCall.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

/** Moves a call from one of `from` to `to`; false when it was not in one of them (someone else moved it). */
export async function moveToolCall({ tx, sessionId, callId, from, to, data = {} }: {
  tx?: Tx;
  sessionId: string;
  callId: string;
  from: CallStatus[];
  to: CallStatus;
  data?: { approvalId?: string; decidedBy?: string | null; decidedAt?: Date; pid?: number | null; host?: string | null; startedAt?: Date; finishedAt?: Date };
}): Promise<boolean> {
  const r = await (tx ?? getDb()).toolCall.updateMany({ where: { sessionId, callId, status: { in: from } }, data: { status: to, ...data } });
  return r.count === 1;
}

/** An owner's decision, shown on the call's card (approved by whom, when). */
export async function markCallDecided({ tx, approvalId, approved, decidedBy, at }: { tx: Tx; approvalId: string; approved: boolean; decidedBy: string; at: Date }) {
  await tx.toolCall.updateMany({ where: { approvalId, status: "pending" }, data: { status: approved ? "approved" : "denied", decidedBy, decidedAt: at } });
}

export async function listSessionToolCalls({ sessionId }: { sessionId: string }): Promise<ToolCallRow[]> {
  return getDb().toolCall.findMany({ where: { sessionId }, orderBy: { createdAt: "asc" } });
}

export async function listOpenRunCalls({ runId, tx }: { runId: string; tx?: Tx }): Promise<ToolCallRow[]> {
  return (tx ?? getDb()).toolCall.findMany({ where: { runId, status: { in: OPEN_CALL_STATUSES } }, orderBy: { createdAt: "asc" } });
}

/** Records the process group of a running command, so an abandoned one can be found and killed. */
export async function recordCallProcess({ sessionId, callId, pid, host }: { sessionId: string; callId: string; pid: number; host: string }) {
  await getDb().toolCall.updateMany({ where: { sessionId, callId, status: "running" }, data: { pid, host } });
}
