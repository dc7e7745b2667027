import "server-only";
// Tool calls keyed by (session, call id): the database's idempotency key. A call id is registered once
// (inserted in the transaction of its first outcome; the unique key refuses a second one, on any instance); moving a call to
// `running` is a conditional update from the one state that allows it, so a call executes at most once.
import { getDb, type Tx } from "./client";

/** "new" is never stored: an outcome "from new" inserts the row (the claim of the call id). */
export type CallStatus =
  "new" | "pending" | "approved" | "running" | "done" | "failed" | "stopped" | "denied" | "expired";
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
  deferredAt: Date | null;
};

/**
 * Claims a call id in the caller's transaction. A call id seen before (on any instance) is refused by the unique
 * key: the insert fails, which aborts the transaction on PostgreSQL, so the caller must roll it back (it throws
 * CallIdTaken, which the run store turns into a lost outcome).
 */
export async function insertToolCall({
  tx,
  sessionId,
  runId,
  callId,
  toolName,
  argsHash,
  status,
  data = {},
}: {
  tx: Tx;
  sessionId: string;
  runId: string;
  callId: string;
  toolName: string;
  argsHash: string;
  status: CallStatus;
  data?: CallData;
}): Promise<void> {
  try {
    await tx.toolCall.create({
      data: { sessionId, runId, callId, toolName, argsHash, status, ...data },
      select: { id: true },
    });
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") throw new CallIdTaken(callId);
    throw error;
  }
}

/** The call id was claimed before: the transaction that tried again must roll back. */
export class CallIdTaken extends Error {
  constructor(readonly callId: string) {
    super(`call id ${callId} was already used in this session`);
  }
}

export async function findToolCall({
  sessionId,
  callId,
  tx,
}: {
  sessionId: string;
  callId: string;
  tx?: Tx;
}): Promise<ToolCallRow | null> {
  return (tx ?? getDb()).toolCall.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

type CallData = {
  approvalId?: string;
  decidedBy?: string | null;
  decidedAt?: Date;
  pid?: number | null;
  host?: string | null;
  startedAt?: Date;
  finishedAt?: Date;
};

/** Moves a call from one of `from` to `to`; false when it was not in one of them (someone else moved it). */
export async function moveToolCall({
  tx,
  sessionId,
  callId,
  from,
  to,
  data = {},
}: {
  tx: Tx;
  sessionId: string;
  callId: string;
  from: CallStatus[];
  to: CallStatus;
  data?: CallData;
}): Promise<boolean> {
  const moved = await tx.toolCall.updateMany({
    where: { sessionId, callId, status: { in: from } },
    data: { status: to, ...data },
  });
  return moved.count === 1;
}

/** An owner's decision, shown on the call's card (approved by whom, when). */
export async function markCallDecided({
  tx,
  approvalId,
  approved,
  decidedBy,
  at,
}: {
  tx: Tx;
  approvalId: string;
  approved: boolean;
  decidedBy: string;
  at: Date;
}) {
  await tx.toolCall.updateMany({
    where: { approvalId, status: "pending" },
    data: { status: approved ? "approved" : "denied", decidedBy, decidedAt: at },
  });
}

export async function listSessionToolCalls({ sessionId }: { sessionId: string }): Promise<ToolCallRow[]> {
  return getDb().toolCall.findMany({ where: { sessionId }, orderBy: { createdAt: "asc" } });
}

/** A session's latest calls, newest first (the admin's view of an outside client's recent calls). */
export async function listRecentToolCalls({ sessionId, limit }: { sessionId: string; limit: number }) {
  return getDb().toolCall.findMany({
    where: { sessionId },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { toolName: true, status: true, approvalId: true, createdAt: true },
  });
}

/**
 * In the caller's transaction, after the run's row is locked (lib/db/runs.ts holdRunForCall or moveRun): a call of
 * the run still `running` other than `callId`. The engine runs one call at a time, so there is one only when a
 * settled call's result was lost. A statement of its own after the lock, with a fresh snapshot, so it sees the
 * calls an instance that failed or stopped the run meanwhile wrote before it let go of the row.
 */
export async function findUnsettledCall({
  tx,
  sessionId,
  runId,
  callId,
}: {
  tx: Tx;
  sessionId: string;
  runId: string;
  callId?: string;
}): Promise<string | null> {
  const unsettled = await tx.toolCall.findFirst({
    where: { sessionId, runId, status: "running", callId: { not: callId ?? "" } },
    select: { callId: true },
  });
  return unsettled?.callId ?? null;
}

export async function listOpenRunCalls({ runId, tx }: { runId: string; tx?: Tx }): Promise<ToolCallRow[]> {
  return (tx ?? getDb()).toolCall.findMany({
    where: { runId, status: { in: OPEN_CALL_STATUSES } },
    orderBy: { createdAt: "asc" },
  });
}

/** Records the process group of a running command, so an abandoned one can be found and killed. */
export async function recordCallProcess({
  sessionId,
  callId,
  pid,
  host,
}: {
  sessionId: string;
  callId: string;
  pid: number;
  host: string;
}) {
  await getDb().toolCall.updateMany({ where: { sessionId, callId, status: "running" }, data: { pid, host } });
}

/**
 * The call that a call made again settles instead of asking anew: the latest call of the session with these
 * arguments whose approval's outcome was not applied yet: undecided, or allowed and not yet run (pending/approved),
 * or, with `denied`, denied and not yet refused once (the approval's consumedAt unset). `turnEnded`: only calls
 * whose turn ended while their approval was still open (deferredAt); a paused chat run settles its own calls.
 * The chat asks both (issue 31, lib/runs/calls.ts); an outside client neither (lib/runs/call-pipeline.ts): each of
 * its calls is a run that ends with it, and a denial reached it while it waited, or the call asks anew.
 */
export async function findRepeatedCall({
  sessionId,
  toolName,
  argsHash,
  turnEnded = false,
  denied = false,
}: {
  sessionId: string;
  toolName: string;
  argsHash: string;
  turnEnded?: boolean;
  denied?: boolean;
}): Promise<{ callId: string; approvalId: string } | null> {
  const db = getDb();
  const statuses: CallStatus[] = denied ? ["pending", "approved", "denied"] : ["pending", "approved"];
  const rows = await db.toolCall.findMany({
    where: {
      sessionId,
      toolName,
      argsHash,
      status: { in: statuses },
      approvalId: { not: null },
      ...(turnEnded ? { deferredAt: { not: null } } : {}),
    },
    orderBy: { createdAt: "desc" },
    take: 20,
    select: { callId: true, approvalId: true },
  });
  if (!rows.length) return null;
  const applied = new Set(
    (
      await db.approval.findMany({
        where: { id: { in: rows.map((r) => r.approvalId!) }, consumedAt: { not: null } },
        select: { id: true },
      })
    ).map((a) => a.id),
  );
  const row = rows.find((r) => !applied.has(r.approvalId!));
  return row ? { callId: row.callId, approvalId: row.approvalId! } : null;
}

/** In the deferring transaction: the run's calls still open on an approval (undecided, or decided and not yet settled). */
export async function listRunCallsOnApproval({ tx, runId }: { tx: Tx; runId: string }): Promise<ToolCallRow[]> {
  return tx.toolCall.findMany({
    where: { runId, status: { in: ["pending", "approved", "denied"] }, approvalId: { not: null }, deferredAt: null },
    orderBy: { createdAt: "asc" },
  });
}

/** Marks calls deferred: their turn ended before their approval's outcome was applied (the matcher finds them). */
export async function markCallsDeferred({ tx, ids, at }: { tx: Tx; ids: string[]; at: Date }): Promise<void> {
  if (ids.length) await tx.toolCall.updateMany({ where: { id: { in: ids } }, data: { deferredAt: at } });
}
