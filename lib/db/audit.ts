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
import type { Prisma } from "@/lib/generated/sqlite/client";
import { getDb, isPostgres, transact, type Tx } from "./client";

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
  return hmac(
    key,
    "toolgate-audit-checkpoint",
    canonicalJson({ seq: c.seq, count: c.count, headHash: c.headHash, at: c.at }),
  );
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
  await transact((tx) => insertAuditRow(tx, entry));
}

type Head = { headHash: string; count: number };

/**
 * The chain's head, locked until commit so that appends from every instance queue behind each other. On
 * PostgreSQL the head row is read FOR UPDATE; only while there is no head row yet (the first append, or one racing
 * it) the advisory lock stands in, and the head is read again under it, because another append may have committed
 * it meanwhile. The rows take their numbers from the log's sequence as they are inserted, under this lock, so the
 * numbers follow the chain's order. On SQLite the transaction's one writer serialises appends.
 */
async function lockHead(tx: Tx): Promise<Head | null> {
  if (!isPostgres())
    return tx.auditCheckpoint.findUnique({ where: { id: HEAD_ID }, select: { headHash: true, count: true } });
  const lockAndRead = async () =>
    (
      await tx.$queryRaw<Head[]>`SELECT "headHash", "count" FROM "AuditCheckpoint" WHERE "id" = ${HEAD_ID} FOR UPDATE`
    )[0] ?? null;
  const head = await lockAndRead();
  if (head) return head;
  await tx.$queryRawUnsafe(`SELECT 1 AS "locked" FROM pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`);
  return lockAndRead();
}

/** Appends one keyed, chained row and moves the signed checkpoint, inside the caller's transaction (see insertAuditRows). */
export async function insertAuditRow(tx: Tx, raw: AuditEntry, at = new Date()): Promise<void> {
  await insertAuditRows(tx, [raw], at);
}

/**
 * Appends keyed, chained rows in order and moves the signed checkpoint once, inside the caller's transaction (an
 * outcome that must commit with its audit rows). Call it last in the transaction: on PostgreSQL it takes the audit
 * lock, held until commit. `at` lets an outcome stamp its audit rows with the moment it began (before the rows it
 * commits with).
 */
export async function insertAuditRows(tx: Tx, raws: AuditEntry[], at = new Date()): Promise<void> {
  if (raws.length === 0) return;
  // Hash exactly what is stored: details as the JSON column will hold them (a Date becomes its ISO string, an
  // undefined key disappears), and the database layer strips NUL bytes and lone surrogates.
  const entries = raws.map((raw) => {
    const details =
      raw.details === undefined || raw.details === null
        ? raw.details
        : (JSON.parse(JSON.stringify(raw.details)) as Record<string, unknown>);
    return sanitizeDeep({ ...raw, details });
  });
  // The signed head names the last row's hash and the count (both move in every append's transaction), so one
  // read serves; only a log without a head yet (older databases) is read from its rows.
  const head = await lockHead(tx);
  const last = head ? null : await tx.auditLog.findFirst({ orderBy: { seq: "desc" }, select: { hash: true } });
  let prevHash = head?.headHash ?? last?.hash ?? GENESIS;
  const count = Number(head?.count ?? (last ? await tx.auditLog.count() : 0)) + entries.length;
  let seq = 0;
  for (const entry of entries) {
    const hash = hashAuditRow(prevHash, { ...entry, at });
    const row = await tx.auditLog.create({
      data: {
        at,
        action: entry.action,
        actorId: entry.actorId ?? null,
        sessionId: entry.sessionId ?? null,
        toolName: entry.toolName ?? null,
        callId: entry.callId ?? null,
        decision: entry.decision ?? null,
        layer: entry.layer ?? null,
        rule: entry.rule ?? null,
        details: (entry.details ?? undefined) as Prisma.InputJsonValue | undefined,
        prevHash,
        hash,
      },
      select: { seq: true },
    });
    prevHash = hash;
    seq = row.seq;
  }
  const checkpoint = { seq, count, headHash: prevHash, at: at.toISOString() };
  const data = { seq, count, headHash: prevHash, signature: signCheckpoint(checkpoint), at };
  await tx.auditCheckpoint.upsert({ where: { id: HEAD_ID }, create: { id: HEAD_ID, ...data }, update: data });
}

/** The signed head of the chain, for operators to keep outside the database; null while the log is empty. */
export async function exportAuditCheckpoint(): Promise<AuditCheckpoint | null> {
  const head = await getDb().auditCheckpoint.findUnique({ where: { id: HEAD_ID } });
  return head
    ? {
        seq: head.seq,
        count: head.count,
        headHash: head.headHash,
        at: head.at.toISOString(),
        signature: head.signature,
      }
    : null;
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

export async function listAuditEntries({
  filter = {},
  cursor,
  limit = 50,
}: {
  filter?: AuditFilter;
  cursor?: number;
  limit?: number;
}) {
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

export type AuditVerification =
  { ok: true; count: number; head: AuditCheckpoint | null } | { ok: false; seq: number; problem: string };

/**
 * Walks the chain in order and checks every row's keyed hash and link, then the stored head checkpoint
 * (its signature, count and head hash: a cut-off tail fails here), then any exported checkpoints the caller
 * kept (each must be signed and match the row at its seq and the count up to it).
 */
export async function verifyAuditChain({
  checkpoints = [],
}: { checkpoints?: AuditCheckpoint[] } = {}): Promise<AuditVerification> {
  const db = getDb();
  const key = auditKey();
  for (const c of checkpoints) {
    if (!sameHex(c.signature, signCheckpoint(c, key)))
      return {
        ok: false,
        seq: c.seq,
        problem: "an exported checkpoint's signature is not valid (not made with this audit key)",
      };
  }
  const wanted = new Map(checkpoints.map((c) => [c.seq, c]));
  let prevHash = GENESIS;
  let count = 0;
  let lastSeq = 0;
  let cursor: number | undefined;
  for (;;) {
    const batch = await db.auditLog.findMany({
      where: cursor ? { seq: { gt: cursor } } : undefined,
      orderBy: { seq: "asc" },
      take: 500,
    });
    if (batch.length === 0) break;
    for (const row of batch) {
      if (row.prevHash !== prevHash)
        return { ok: false, seq: row.seq, problem: "link to the previous row is broken (a row was deleted or edited)" };
      const expected = hashAuditRow(prevHash, { ...row, details: row.details as Record<string, unknown> | null }, key);
      if (!sameHex(row.hash, expected))
        return {
          ok: false,
          seq: row.seq,
          problem: "row content does not match its keyed hash (edited, or re-chained without the audit key)",
        };
      prevHash = row.hash;
      count += 1;
      lastSeq = row.seq;
      cursor = row.seq;
      const exported = wanted.get(row.seq);
      if (exported && (exported.count !== count || exported.headHash !== row.hash))
        return { ok: false, seq: row.seq, problem: "the log differs from an exported checkpoint at this row" };
      wanted.delete(row.seq);
    }
  }
  const missing = [...wanted.values()][0];
  if (missing)
    return {
      ok: false,
      seq: missing.seq,
      problem: "rows named by an exported checkpoint are gone (the log was truncated)",
    };
  const head = await exportAuditCheckpoint();
  if (!head)
    return count === 0
      ? { ok: true, count, head }
      : { ok: false, seq: lastSeq, problem: "the signed checkpoint is missing" };
  if (!sameHex(head.signature, signCheckpoint(head, key)))
    return { ok: false, seq: head.seq, problem: "the stored checkpoint's signature is not valid" };
  if (head.count !== count || head.seq !== lastSeq || head.headHash !== prevHash)
    return {
      ok: false,
      seq: head.seq,
      problem: `the log ends at seq ${lastSeq} with ${count} rows but the signed checkpoint names seq ${head.seq} with ${head.count} (rows were cut off or added around the chain)`,
    };
  return { ok: true, count, head };
}
