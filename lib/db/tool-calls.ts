import "server-only";
// Tool calls keyed by (session, call id): the database's idempotency key. A call id is registered once
// (inserted in the transaction of its first outcome; the unique key refuses a second one, on any instance); moving a call to
// `running` is a conditional update from the one state that allows it, so a call executes at most once.
import { getDb, type Tx } from "./client";
import { asSql, failLost, inList, newId, orLost, type Sql } from "./sql";

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

/** Claims a call id in the caller's transaction; false when it was seen before (the unique key kept the first). */
export async function insertToolCall({ tx, sessionId, runId, callId, toolName, argsHash, status, data = {}, raise }: {
  tx: Tx | Sql;
  /** A call id seen before fails the transaction as lost instead of answering false (orLost). */
  raise?: boolean;
  sessionId: string;
  runId: string;
  callId: string;
  toolName: string;
  argsHash: string;
  status: CallStatus;
  data?: CallData;
}): Promise<boolean> {
  const now = new Date();
  const d = callData(data);
  const columns = ["id", "sessionId", "runId", "callId", "toolName", "argsHash", "status", "createdAt", "updatedAt", ...d.columns];
  const casts = ["", "", "", "", "", "", "", "::timestamp(3)", "::timestamp(3)", ...d.columns.map((c) => CALL_CASTS[c])];
  // ON CONFLICT DO NOTHING instead of a unique-key error: on PostgreSQL an error would abort the transaction.
  const sql = asSql(tx);
  const insert = `INSERT INTO "ToolCall" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${casts.map((cast, i) => `$${i + 1}${cast}`).join(", ")})
     ON CONFLICT ("sessionId", "callId") DO NOTHING RETURNING "id"`;
  const rows = await sql.rows(orLost(sql, insert, raise ? "call" : undefined), [newId(), sessionId, runId, callId, toolName, argsHash, status, now, now, ...d.values]);
  return rows.length === 1;
}

export async function findToolCall({ sessionId, callId, tx }: { sessionId: string; callId: string; tx?: Tx }): Promise<ToolCallRow | null> {
  return (tx ?? getDb()).toolCall.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

type CallData = { approvalId?: string; decidedBy?: string | null; decidedAt?: Date; pid?: number | null; host?: string | null; startedAt?: Date; finishedAt?: Date };
const CALL_CASTS: Record<keyof CallData, string> = { approvalId: "", decidedBy: "", decidedAt: "::timestamp(3)", pid: "::int", host: "", startedAt: "::timestamp(3)", finishedAt: "::timestamp(3)" };

/** The optional columns of a call that are set (undefined = left alone), in a fixed order. */
function callData(data: CallData): { columns: Array<keyof CallData>; values: unknown[] } {
  const columns = (Object.keys(CALL_CASTS) as Array<keyof CallData>).filter((c) => data[c] !== undefined);
  return { columns, values: columns.map((c) => data[c]) };
}

/** Moves a call from one of `from` to `to`; false when it was not in one of them (someone else moved it). */
export async function moveToolCall({ tx, sessionId, callId, from, to, data = {}, raise }: {
  tx: Tx | Sql;
  /** A call not in one of `from` fails the transaction as lost instead of answering false (orLost). */
  raise?: boolean;
  sessionId: string;
  callId: string;
  from: CallStatus[];
  to: CallStatus;
  data?: CallData;
}): Promise<boolean> {
  const d = callData(data);
  const set = d.columns.map((c, i) => `, "${c}" = $${5 + i}${CALL_CASTS[c]}`).join("");
  const sql = asSql(tx);
  const update = `UPDATE "ToolCall" SET "status" = $1, "updatedAt" = $2::timestamp(3)${set}
     WHERE "sessionId" = $3 AND "callId" = $4 AND "status" IN ${inList(5 + d.columns.length, from.length)} RETURNING "id"`;
  const rows = await sql.rows(orLost(sql, update, raise ? "call" : undefined), [to, new Date(), sessionId, callId, ...d.values, ...from]);
  return rows.length === 1;
}

/** An owner's decision, shown on the call's card (approved by whom, when). */
export async function markCallDecided({ tx, approvalId, approved, decidedBy, at }: { tx: Tx; approvalId: string; approved: boolean; decidedBy: string; at: Date }) {
  await tx.toolCall.updateMany({ where: { approvalId, status: "pending" }, data: { status: approved ? "approved" : "denied", decidedBy, decidedAt: at } });
}

export async function listSessionToolCalls({ sessionId }: { sessionId: string }): Promise<ToolCallRow[]> {
  return getDb().toolCall.findMany({ where: { sessionId }, orderBy: { createdAt: "asc" } });
}

/**
 * Before a call of the run starts or the run moves out of `running`, in the caller's transaction: whether it still runs
 * with no Stop asked, and a call of it still `running` other than `callId` (the engine runs one call at a time, so
 * there is one only when a settled call's deferred result was lost). On PostgreSQL the run's row is locked until
 * commit, so an instance failing or stopping the run meanwhile either waits for this transaction (and then sees
 * its call) or has finished first (and this one sees the run ended).
 */
export async function checkRunForCall({ tx, sessionId, runId, callId, raise }: {
  tx: Tx | Sql;
  sessionId: string;
  runId: string;
  callId?: string;
  /**
   * On the pipelined runner, fail the transaction as lost (unlessLost) instead of answering: "unsettled" for a call
   * still `running`, and "run" when the run is not held and `raise.starts` (a call is about to start).
   */
  raise?: { starts: boolean };
}): Promise<{ held: boolean; unsettled: string | null }> {
  const sql = asSql(tx);
  // On PostgreSQL the run's row is locked by a statement of its own and read by the next: a statement reads with the
  // snapshot it started with, so a check that waited for the lock itself would not see a call started by the
  // transaction it waited for. Pipelined, the two statements share a round trip.
  const locked = sql.dialect === "postgres" ? sql.rows(`SELECT 1 AS "locked" FROM "AgentRun" WHERE "id" = $1 FOR UPDATE`, [runId]) : undefined;
  const check = `SELECT ("r"."status" = 'running' AND "r"."stopRequestedAt" IS NULL) AS "held",
       (SELECT "c"."callId" FROM "ToolCall" "c" WHERE "c"."sessionId" = $2 AND "c"."runId" = "r"."id" AND "c"."status" = 'running' AND "c"."callId" <> $3 LIMIT 1) AS "unsettled"
     FROM "AgentRun" "r" WHERE "r"."id" = $1`;
  const answer =
    raise && sql.pipelined
      ? sql.rows<{ held: boolean; unsettled: string | null }>(
          `WITH "q" AS (${check}) SELECT (SELECT "held" FROM "q") AS "held", (SELECT "unsettled" FROM "q") AS "unsettled",
             CASE WHEN $4::boolean AND NOT COALESCE((SELECT "held" FROM "q"), false) THEN ${failLost("run")}
               WHEN (SELECT "unsettled" FROM "q") IS NOT NULL THEN ${failLost("unsettled")} ELSE true END AS "ok"`,
          [runId, sessionId, callId ?? "", raise.starts],
        )
      : sql.rows<{ held: boolean | number; unsettled: string | null }>(check, [runId, sessionId, callId ?? ""]);
  // Both asked for before either is read; each failure is reported by its own await, the lock's first.
  locked?.catch(() => undefined);
  answer.catch(() => undefined);
  await locked;
  const [row] = await answer;
  return { held: Boolean(row?.held), unsettled: row?.unsettled ?? null };
}

export async function listOpenRunCalls({ runId, tx }: { runId: string; tx?: Tx }): Promise<ToolCallRow[]> {
  return (tx ?? getDb()).toolCall.findMany({ where: { runId, status: { in: OPEN_CALL_STATUSES } }, orderBy: { createdAt: "asc" } });
}

/** Records the process group of a running command, so an abandoned one can be found and killed. */
export async function recordCallProcess({ sessionId, callId, pid, host }: { sessionId: string; callId: string; pid: number; host: string }) {
  await getDb().toolCall.updateMany({ where: { sessionId, callId, status: "running" }, data: { pid, host } });
}
