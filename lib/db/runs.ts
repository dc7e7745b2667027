import "server-only";
// Agent runs and the run lease. A session has at most one active run (ChatSession.activeRunId, claimed by a
// conditional update in the transaction that creates the run); a running run is leased by one instance until
// leaseExpiresAt, renewed by that instance's heartbeat. Every state change is a conditional update, so two
// instances never both resume, stop or fail the same run.
import { getDb, type Tx } from "./client";
import { asSql, inList, orLost, unlessLost, type Sql } from "./sql";

export type RunStatus = "running" | "waiting_approval" | "completed" | "aborted" | "failed";
export type RunRow = NonNullable<Awaited<ReturnType<typeof findRun>>>;

export async function findRun({ runId, tx }: { runId: string; tx?: Tx }) {
  return (tx ?? getDb()).agentRun.findUnique({ where: { id: runId } });
}

/**
 * In the caller's transaction: makes `runId` (not yet inserted: see insertLeasedRun) the session's active run.
 * False when another run is active: the caller must then roll its transaction back.
 */
export async function claimSessionForRun({ tx, sessionId, runId }: { tx: Tx | Sql; sessionId: string; runId: string }): Promise<boolean> {
  const rows = await asSql(tx).rows(`UPDATE "ChatSession" SET "activeRunId" = $1, "updatedAt" = $2::timestamp(3) WHERE "id" = $3 AND "activeRunId" IS NULL RETURNING "id"`, [runId, new Date(), sessionId]);
  return rows.length === 1;
}

/** In the caller's transaction: the run, running and leased by `owner`; its turn ends at the user message `userSeq`. */
export async function insertLeasedRun({ tx, runId, sessionId, owner, leaseMs, userSeq }: { tx: Tx | Sql; runId: string; sessionId: string; owner: string; leaseMs: number; userSeq: number }) {
  const now = new Date();
  await asSql(tx).rows(
    `INSERT INTO "AgentRun" ("id", "sessionId", "status", "createdAt", "updatedAt", "leaseExpiresAt", "leaseOwner", "userSeq")
     VALUES ($1, $2, 'running', $3::timestamp(3), $3::timestamp(3), $4::timestamp(3), $5, $6) RETURNING "id"`,
    [runId, sessionId, now, new Date(now.getTime() + leaseMs), owner, userSeq],
  );
}

/** Claims a paused run for resuming: only one instance wins, and it holds the lease from now on. */
export async function claimWaitingRun({ runId, owner, leaseMs }: { runId: string; owner: string; leaseMs: number }): Promise<boolean> {
  const r = await getDb().agentRun.updateMany({
    where: { id: runId, status: "waiting_approval", stopRequestedAt: null },
    data: { status: "running", leaseOwner: owner, leaseExpiresAt: new Date(Date.now() + leaseMs) },
  });
  return r.count === 1;
}

export async function listWaitingRuns() {
  return getDb().agentRun.findMany({ where: { status: "waiting_approval" }, orderBy: { createdAt: "asc" } });
}

/**
 * Ends a run in the caller's transaction, only if it is still in `from` (and, when given, still leased by
 * `owner`): a run failed by another instance for a lapsed lease is not overwritten. Waiting runs keep the
 * session (the turn is not over); finished ones release it.
 */
export async function moveRun({ tx, runId, from, to, error, owner, raise }: {
  tx: Tx | Sql;
  runId: string;
  from: RunStatus[];
  to: RunStatus;
  error?: string | null;
  owner?: string;
  /** A run not in one of `from` (or not `owner`'s) fails the transaction as lost instead of answering false (orLost). */
  raise?: boolean;
}): Promise<boolean> {
  const sql = asSql(tx);
  const releasesLease = to !== "running";
  const params: unknown[] = [to, error ?? null, new Date(), runId, ...from];
  const ownerClause = owner ? ` AND "leaseOwner" = $${params.push(owner)}` : "";
  const move = `UPDATE "AgentRun" SET "status" = $1, "error" = $2, "updatedAt" = $3::timestamp(3)${releasesLease ? `, "leaseOwner" = NULL, "leaseExpiresAt" = NULL` : ""}
     WHERE "id" = $4 AND "status" IN ${inList(5, from.length)}${ownerClause} RETURNING "sessionId"`;
  // A run that ends frees its session for the next turn.
  const frees = to !== "waiting_approval" && to !== "running";
  const free = (session: string) => `UPDATE "ChatSession" SET "activeRunId" = NULL, "updatedAt" = $3::timestamp(3) WHERE "id" = ${session} AND "activeRunId" = $4 RETURNING "id"`;
  // On PostgreSQL one statement (the session's update reads the run's; SQLite allows no writes in WITH), so the
  // outcome's next statements can be sent without waiting for this one's answer (sql.ts).
  if (frees && sql.dialect === "postgres") {
    const moved = raise && sql.pipelined ? unlessLost(`EXISTS (SELECT 1 FROM "r")`, "run") : `"sessionId" FROM "r"`;
    return (await sql.rows(`WITH "r" AS (${move}), "s" AS (${free(`(SELECT "sessionId" FROM "r")`)}) SELECT ${moved}`, params)).length === 1;
  }
  if (!frees) return (await sql.rows(orLost(sql, move, raise ? "run" : undefined), params)).length === 1;
  const [run] = await sql.rows<{ sessionId: string }>(move, params);
  if (!run) return false;
  await sql.rows(free("$5"), [to, error ?? null, params[2], runId, run.sessionId]);
  return true;
}

/** Heartbeat: extends the leases this instance holds; returns the runs still held and any stop requests. */
export async function renewLeases({ owner, runIds, leaseMs }: { owner: string; runIds: string[]; leaseMs: number }) {
  if (runIds.length === 0) return [];
  await getDb().agentRun.updateMany({ where: { id: { in: runIds }, leaseOwner: owner, status: "running" }, data: { leaseExpiresAt: new Date(Date.now() + leaseMs) } });
  return getDb().agentRun.findMany({ where: { id: { in: runIds } }, select: { id: true, status: true, leaseOwner: true, stopRequestedAt: true } });
}

/** Running runs whose lease lapsed (their instance died or hung), or that a predicate says are abandoned. */
export async function listRunningRuns() {
  return getDb().agentRun.findMany({ where: { status: "running" }, select: { id: true, sessionId: true, leaseOwner: true, leaseExpiresAt: true } });
}

export async function requestRunStop({ runId, by }: { runId: string; by: string }): Promise<boolean> {
  const r = await getDb().agentRun.updateMany({ where: { id: runId, status: { in: ["running", "waiting_approval"] }, stopRequestedAt: null }, data: { stopRequestedAt: new Date(), stopRequestedBy: by } });
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
    await getDb().chatSession.updateMany({ where: { id: sessionId, activeRunId: session.activeRunId }, data: { activeRunId: null } });
  }
}
