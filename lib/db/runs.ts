import "server-only";
// Agent runs and the run lease. A session has at most one active run (ChatSession.activeRunId, claimed by a
// conditional update in the transaction that creates the run); a running run is leased by one instance until
// leaseExpiresAt, renewed by that instance's heartbeat. Every state change is a conditional update, so two
// instances never both resume, stop or fail the same run.
import { getDb, type Tx } from "./client";

export type RunStatus = "running" | "waiting_approval" | "completed" | "aborted" | "failed";
export type RunRow = NonNullable<Awaited<ReturnType<typeof findRun>>>;

export async function findRun({ runId, tx }: { runId: string; tx?: Tx }) {
  return (tx ?? getDb()).agentRun.findUnique({ where: { id: runId } });
}

/**
 * In the caller's transaction: makes `runId` (not yet inserted: see insertLeasedRun) the session's active run, in
 * one write with what else the turn's start changes on the session row: `title` names it, `takeSeq` takes the
 * number of the turn's first message (lib/db/messages.ts appendMessageTx's `seq`). Answers the session's message
 * counter after the write, or null when another run is active or the session was deleted: the caller must then
 * roll its transaction back.
 */
export async function claimSessionForRun({
  tx,
  sessionId,
  runId,
  title,
  takeSeq = false,
}: {
  tx: Tx;
  sessionId: string;
  runId: string;
  title?: string;
  takeSeq?: boolean;
}): Promise<number | null> {
  try {
    const row = await tx.chatSession.update({
      where: { id: sessionId, activeRunId: null, deletedAt: null },
      data: {
        activeRunId: runId,
        ...(title !== undefined ? { title } : {}),
        ...(takeSeq ? { messageSeq: { increment: 1 } } : {}),
      },
      select: { messageSeq: true },
    });
    return row.messageSeq;
  } catch (error) {
    // No row matched (claimed by another run, deleted, or gone): the statement changed nothing.
    if ((error as { code?: string }).code === "P2025") return null;
    throw error;
  }
}

/** In the caller's transaction: the run, running and leased by `owner`; its turn ends at the user message `userSeq`. */
export async function insertLeasedRun({
  tx,
  runId,
  sessionId,
  owner,
  leaseMs,
  userSeq,
}: {
  tx: Tx;
  runId: string;
  sessionId: string;
  owner: string;
  leaseMs: number;
  userSeq: number | null;
}) {
  await tx.agentRun.create({
    data: {
      id: runId,
      sessionId,
      status: "running",
      leaseExpiresAt: new Date(Date.now() + leaseMs),
      leaseOwner: owner,
      userSeq,
    },
    select: { id: true },
  });
}

/**
 * Before a call of the run starts, in the caller's transaction: whether it still runs with no Stop asked. A run
 * that is held has its row written here, which locks it until commit (PostgreSQL's row lock, re-checked against a
 * Stop or a failure committed while it waited; SQLite's one writer), so an instance failing or stopping the run
 * meanwhile either waits for this transaction (and then sees its call) or has finished first (and this one sees the
 * run ended).
 */
export async function holdRunForCall({ tx, runId }: { tx: Tx; runId: string }): Promise<boolean> {
  const held = await tx.agentRun.updateMany({
    where: { id: runId, status: "running", stopRequestedAt: null },
    data: { updatedAt: new Date() },
  });
  return held.count === 1;
}

/** Claims a paused run for resuming: only one instance wins, and it holds the lease from now on. */
export async function claimWaitingRun({
  runId,
  owner,
  leaseMs,
}: {
  runId: string;
  owner: string;
  leaseMs: number;
}): Promise<boolean> {
  const r = await getDb().agentRun.updateMany({
    where: { id: runId, status: "waiting_approval", stopRequestedAt: null },
    data: { status: "running", leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + leaseMs) },
  });
  return r.count === 1;
}

/** Runs waiting for an owner since before `before` (their last move was to waiting_approval), no Stop asked. */
export async function listOverdueWaitingRuns({ before }: { before: Date }) {
  return getDb().agentRun.findMany({
    where: { status: "waiting_approval", stopRequestedAt: null, updatedAt: { lt: before } },
    select: { id: true, sessionId: true, updatedAt: true },
    orderBy: { updatedAt: "asc" },
    take: 100,
  });
}

export async function listWaitingRuns() {
  return getDb().agentRun.findMany({ where: { status: "waiting_approval" }, orderBy: { createdAt: "asc" } });
}

/**
 * Moves a run in the caller's transaction, only if it is still in `from` (and, when given, still leased by
 * `owner`): a run failed by another instance for a lapsed lease is not overwritten. Waiting runs keep the
 * session (the turn is not over); finished ones release it, unless the run never `claimed` it (an outside
 * client's run beside others, lib/runs/call-pipeline.ts).
 */
export async function moveRun({
  tx,
  runId,
  sessionId,
  from,
  to,
  error,
  owner,
  claimed = true,
}: {
  tx: Tx;
  runId: string;
  sessionId: string;
  from: RunStatus[];
  to: RunStatus;
  error?: string | null;
  owner?: string;
  claimed?: boolean;
}): Promise<boolean> {
  const releasesLease = to !== "running";
  const moved = await tx.agentRun.updateMany({
    where: { id: runId, status: { in: from }, ...(owner ? { leaseOwner: owner } : {}) },
    data: { status: to, error: error ?? null, ...(releasesLease ? { leaseOwner: null, leaseExpiresAt: null } : {}) },
  });
  if (moved.count !== 1) return false;
  // A run that ends frees its session for the next turn.
  if (claimed && to !== "waiting_approval" && to !== "running")
    await tx.chatSession.updateMany({ where: { id: sessionId, activeRunId: runId }, data: { activeRunId: null } });
  return true;
}

/** Heartbeat: extends the leases this instance holds; returns the runs still held and any stop requests. */
export async function renewLeases({ owner, runIds, leaseMs }: { owner: string; runIds: string[]; leaseMs: number }) {
  if (runIds.length === 0) return [];
  await getDb().agentRun.updateMany({
    where: { id: { in: runIds }, leaseOwner: owner, status: "running" },
    data: { leaseExpiresAt: new Date(Date.now() + leaseMs) },
  });
  return getDb().agentRun.findMany({
    where: { id: { in: runIds } },
    select: { id: true, status: true, leaseOwner: true, stopRequestedAt: true },
  });
}

/** Running runs whose lease lapsed (their instance died or hung), or that a predicate says are abandoned. */
export async function listRunningRuns() {
  return getDb().agentRun.findMany({
    where: { status: "running" },
    select: { id: true, sessionId: true, leaseOwner: true, leaseExpiresAt: true },
  });
}

export async function requestRunStop({ runId, by }: { runId: string; by: string }): Promise<boolean> {
  const r = await getDb().agentRun.updateMany({
    where: { id: runId, status: { in: ["running", "waiting_approval"] }, stopRequestedAt: null },
    data: { stopRequestedAt: new Date(), stopRequestedBy: by },
  });
  return r.count === 1;
}

export async function findActiveRun({ sessionId }: { sessionId: string }) {
  const session = await getDb().chatSession.findUnique({ where: { id: sessionId }, select: { activeRunId: true } });
  return session?.activeRunId ? findRun({ runId: session.activeRunId }) : null;
}

/** Clears a session's active run when that run has already ended (a crash between the two writes cannot happen, but an old row may say so). */
export async function releaseEndedRun({ sessionId }: { sessionId: string }) {
  const session = await getDb().chatSession.findUnique({ where: { id: sessionId }, select: { activeRunId: true } });
  if (!session?.activeRunId) return;
  const run = await findRun({ runId: session.activeRunId });
  if (!run || !["running", "waiting_approval"].includes(run.status)) {
    await getDb().chatSession.updateMany({
      where: { id: sessionId, activeRunId: session.activeRunId },
      data: { activeRunId: null },
    });
  }
}
