import "server-only";
// The audit log is append-only and chained with a keyed hash: each row's hash is an HMAC (the audit key,
// lib/db/audit-key.ts, never AUTH_SECRET) over its content and the previous row's hash, so an edited or
// deleted row breaks the chain and cannot be re-chained without the key. A signed checkpoint (count, last
// seq, head hash) is written in the same transaction into its own table, so cutting off the tail is
// detected too; operators export checkpoints and verify against them later (npm run audit:verify).
// Appends are serialised (in-process queue, plus a lock on the head row across instances: see lockHead).
import { createHmac, timingSafeEqual } from "node:crypto";
import { canonicalJson } from "@/lib/canonical-json";
import { sanitizeDeep } from "@/lib/text-sanitize";
import { auditKey } from "./audit-key";
import { getDb, type Tx } from "./client";
import { asSql, json, transactSql, type Sql } from "./sql";

export type AuditEntry = {
  action: string;
  actorId?: string | null;
  sessionId?: string | null;
  toolName?: string | null;
  callId?: string | null;
  decision?: string | null;
  layer?: string | null;
  rule?: string | null;
  details?: Record<string, unknown> | null;
};

const GENESIS = "0".repeat(64);
const AUDIT_LOCK_KEY = 7_311_001;
const HEAD_ID = "head";

function hmac(key: Buffer, ...parts: string[]): string {
  const mac = createHmac("sha256", key);
  parts.forEach((part, i) => {
    if (i > 0) mac.update("\n");
    mac.update(part);
  });
  return mac.digest("hex");
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export type AuditCheckpoint = { seq: number; count: number; headHash: string; at: string; signature: string };

export function signCheckpoint(c: Omit<AuditCheckpoint, "signature">, key = auditKey()): string {
  return hmac(key, "toolgate-audit-checkpoint", canonicalJson({ seq: c.seq, count: c.count, headHash: c.headHash, at: c.at }));
}

export function hashAuditRow(prevHash: string, row: AuditEntry & { at: Date }, key = auditKey()): string {
  const body = canonicalJson({
    at: row.at.toISOString(),
    action: row.action,
    actorId: row.actorId ?? null,
    sessionId: row.sessionId ?? null,
    toolName: row.toolName ?? null,
    callId: row.callId ?? null,
    decision: row.decision ?? null,
    layer: row.layer ?? null,
    rule: row.rule ?? null,
    details: row.details ?? null,
  });
  return hmac(key, prevHash, body);
}

let queue: Promise<unknown> = Promise.resolve();

export function appendAudit(entry: AuditEntry): Promise<void> {
  const run = queue.then(() => insertChained(entry));
  queue = run.catch(() => undefined);
  return run;
}

async function insertChained(entry: AuditEntry): Promise<void> {
  await transactSql((sql) => insertAuditRow(sql, entry));
}

type Head = { headHash: string; count: number; seqs?: number[] };

// The new rows' numbers, taken from the log's own sequence (PostgreSQL) while the head is locked.
const nextSeqs = (count: string) => `ARRAY(SELECT nextval(pg_get_serial_sequence('"AuditLog"', 'seq')) FROM generate_series(1, ${count}::int))`;

/**
 * The chain's head, locked until commit so that appends from every instance queue behind each other. On
 * PostgreSQL one statement locks and reads the head row and takes the numbers of the `rows` rows about to be
 * appended: the locking read is a materialized CTE, and the outer select (with nextval) runs only on the row it
 * returns, locked, so numbers follow the order in which appends hold the lock, which is the chain's order. Only
 * while there is no head row yet (the first append, or one racing it) the advisory lock stands in, and the head
 * is read again under it, locked, because another append may have committed it meanwhile. On SQLite the
 * transaction's write lock serialises appends (and the rows are numbered as they are inserted).
 */
async function lockHead(sql: Sql, rows: number): Promise<Head | null> {
  const read = `SELECT "headHash", "count" FROM "AuditCheckpoint" WHERE "id" = $1`;
  if (sql.dialect === "sqlite") return (await sql.rows<Head>(read, [HEAD_ID]))[0] ?? null;
  const lockAndRead = async () =>
    (await sql.rows<Head>(`WITH "h" AS MATERIALIZED (${read} FOR UPDATE) SELECT "headHash", "count", ${nextSeqs("$2")} AS "seqs" FROM "h"`, [HEAD_ID, rows]))[0] ?? null;
  const head = await lockAndRead();
  if (head) return head;
  await sql.rows(`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`);
  return lockAndRead();
}

const AUDIT_COLUMNS = `"at", "action", "actorId", "sessionId", "toolName", "callId", "decision", "layer", "rule", "details", "prevHash", "hash"`;
const AUDIT_CASTS = ["::timestamp(3)", "", "", "", "", "", "", "", "", "::jsonb", "", ""];
const UPSERT_HEAD = `INSERT INTO "AuditCheckpoint" ("id", "seq", "count", "headHash", "signature", "at") VALUES ($1, $2, $3, $4, $5, $6::timestamp(3))
     ON CONFLICT ("id") DO UPDATE SET "seq" = excluded."seq", "count" = excluded."count", "headHash" = excluded."headHash", "signature" = excluded."signature", "at" = excluded."at" RETURNING "id"`;

/** Appends one keyed, chained row and moves the signed checkpoint, inside the caller's transaction (see insertAuditRows). */
export async function insertAuditRow(tx: Tx | Sql, raw: AuditEntry, at = new Date()): Promise<void> {
  await insertAuditRows(tx, [raw], at);
}

/**
 * Appends keyed, chained rows in order and moves the signed checkpoint once, inside the caller's transaction (an
 * outcome that must commit with its audit rows). Call it last in the transaction: on PostgreSQL it takes the audit
 * lock, held until commit. `at` lets an outcome stamp its audit rows with the moment it began (before the rows it
 * commits with). On PostgreSQL that is two statements whatever the number of rows: the locked head with the rows'
 * numbers, then the rows and the checkpoint together, sent with the commit.
 */
export async function insertAuditRows(tx: Tx | Sql, raws: AuditEntry[], at = new Date()): Promise<void> {
  if (raws.length === 0) return;
  const sql = asSql(tx);
  // Hash exactly what is stored: details as the JSON column will hold them (a Date becomes its ISO string, an
  // undefined key disappears), and the database layer strips NUL bytes and lone surrogates.
  const entries = raws.map((raw) => {
    const details = raw.details === undefined || raw.details === null ? raw.details : (JSON.parse(JSON.stringify(raw.details)) as Record<string, unknown>);
    return sanitizeDeep({ ...raw, details });
  });
  // The signed head names the last row's hash and the count (both move in every append's transaction), so one
  // read serves; only a log without a head yet (older databases) is read from its rows.
  const head = await lockHead(sql, entries.length);
  const last = head ? undefined : (await sql.rows<{ hash: string; count: number }>(`SELECT "hash", (SELECT COUNT(*) FROM "AuditLog") AS "count" FROM "AuditLog" ORDER BY "seq" DESC LIMIT 1`))[0];
  let prevHash = head?.headHash ?? last?.hash ?? GENESIS;
  const count = Number(head?.count ?? last?.count ?? 0) + entries.length;
  const rows = entries.map((entry) => {
    const hash = hashAuditRow(prevHash, { ...entry, at });
    const values = [at, entry.action, entry.actorId ?? null, entry.sessionId ?? null, entry.toolName ?? null, entry.callId ?? null, entry.decision ?? null, entry.layer ?? null, entry.rule ?? null, json(entry.details), prevHash, hash];
    prevHash = hash;
    return values;
  });
  const checkpoint = (seq: number) => {
    const c = { seq, count, headHash: prevHash, at: at.toISOString() };
    return [HEAD_ID, seq, count, prevHash, signCheckpoint(c), at];
  };
  if (sql.dialect === "postgres") {
    const seqs = head?.seqs ?? (await sql.rows<{ seqs: number[] }>(`SELECT ${nextSeqs("$1")} AS "seqs"`, [entries.length]))[0]!.seqs;
    const width = AUDIT_CASTS.length + 1;
    const tuples = rows.map((_, r) => `(${["::int", ...AUDIT_CASTS].map((cast, c) => `$${7 + r * width + c}${cast}`).join(", ")})`);
    // Nothing is read back: sent with the commit (sql.ts, write).
    await sql.write(`WITH "rows" AS (INSERT INTO "AuditLog" ("seq", ${AUDIT_COLUMNS}) VALUES ${tuples.join(", ")}) ${UPSERT_HEAD}`, [
      ...checkpoint(Number(seqs[seqs.length - 1])),
      ...rows.flatMap((values, r) => [Number(seqs[r]), ...values]),
    ]);
    return;
  }
  let seq = 0;
  for (const values of rows) {
    const [row] = await sql.rows<{ seq: number }>(`INSERT INTO "AuditLog" (${AUDIT_COLUMNS}) VALUES (${AUDIT_CASTS.map((cast, i) => `$${i + 1}${cast}`).join(", ")}) RETURNING "seq"`, values);
    seq = Number(row!.seq);
  }
  await sql.rows(UPSERT_HEAD, checkpoint(seq));
}

/** The signed head of the chain, for operators to keep outside the database; null while the log is empty. */
export async function exportAuditCheckpoint(): Promise<AuditCheckpoint | null> {
  const head = await getDb().auditCheckpoint.findUnique({ where: { id: HEAD_ID } });
  return head ? { seq: head.seq, count: head.count, headHash: head.headHash, at: head.at.toISOString(), signature: head.signature } : null;
}

export type AuditFilter = {
  /** One user id, or any of several (a partial e-mail search). */
  actorId?: string | string[];
  sessionId?: string;
  toolName?: string;
  decision?: string;
  layer?: string;
  action?: string;
  from?: Date;
  to?: Date;
};

export async function listAuditEntries({ filter = {}, cursor, limit = 50 }: { filter?: AuditFilter; cursor?: number; limit?: number }) {
  const rows = await getDb().auditLog.findMany({
    where: {
      actorId: Array.isArray(filter.actorId) ? { in: filter.actorId } : filter.actorId,
      sessionId: filter.sessionId,
      toolName: filter.toolName,
      decision: filter.decision,
      layer: filter.layer,
      action: filter.action,
      at: filter.from || filter.to ? { gte: filter.from, lte: filter.to } : undefined,
      seq: cursor ? { lt: cursor } : undefined,
    },
    orderBy: { seq: "desc" },
    take: limit + 1,
  });
  const page = rows.slice(0, limit);
  return { entries: page, nextCursor: rows.length > limit ? page[page.length - 1]?.seq : undefined };
}

export type AuditVerification = { ok: true; count: number; head: AuditCheckpoint | null } | { ok: false; seq: number; problem: string };

/**
 * Walks the chain in order and checks every row's keyed hash and link, then the stored head checkpoint
 * (its signature, count and head hash: a cut-off tail fails here), then any exported checkpoints the caller
 * kept (each must be signed and match the row at its seq and the count up to it).
 */
export async function verifyAuditChain({ checkpoints = [] }: { checkpoints?: AuditCheckpoint[] } = {}): Promise<AuditVerification> {
  const db = getDb();
  const key = auditKey();
  for (const c of checkpoints) {
    if (!sameHex(c.signature, signCheckpoint(c, key))) return { ok: false, seq: c.seq, problem: "an exported checkpoint's signature is not valid (not made with this audit key)" };
  }
  const wanted = new Map(checkpoints.map((c) => [c.seq, c]));
  let prevHash = GENESIS;
  let count = 0;
  let lastSeq = 0;
  let cursor: number | undefined;
  for (;;) {
    const batch = await db.auditLog.findMany({ where: cursor ? { seq: { gt: cursor } } : undefined, orderBy: { seq: "asc" }, take: 500 });
    if (batch.length === 0) break;
    for (const row of batch) {
      if (row.prevHash !== prevHash) return { ok: false, seq: row.seq, problem: "link to the previous row is broken (a row was deleted or edited)" };
      const expected = hashAuditRow(prevHash, { ...row, details: row.details as Record<string, unknown> | null }, key);
      if (!sameHex(row.hash, expected)) return { ok: false, seq: row.seq, problem: "row content does not match its keyed hash (edited, or re-chained without the audit key)" };
      prevHash = row.hash;
      count += 1;
      lastSeq = row.seq;
      cursor = row.seq;
      const exported = wanted.get(row.seq);
      if (exported && (exported.count !== count || exported.headHash !== row.hash)) return { ok: false, seq: row.seq, problem: "the log differs from an exported checkpoint at this row" };
      wanted.delete(row.seq);
    }
  }
  const missing = [...wanted.values()][0];
  if (missing) return { ok: false, seq: missing.seq, problem: "rows named by an exported checkpoint are gone (the log was truncated)" };
  const head = await exportAuditCheckpoint();
  if (!head) return count === 0 ? { ok: true, count, head } : { ok: false, seq: lastSeq, problem: "the signed checkpoint is missing" };
  if (!sameHex(head.signature, signCheckpoint(head, key))) return { ok: false, seq: head.seq, problem: "the stored checkpoint's signature is not valid" };
  if (head.count !== count || head.seq !== lastSeq || head.headHash !== prevHash)
    return { ok: false, seq: head.seq, problem: `the log ends at seq ${lastSeq} with ${count} rows but the signed checkpoint names seq ${head.seq} with ${head.count} (rows were cut off or added around the chain)` };
  return { ok: true, count, head };
}
