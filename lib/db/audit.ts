import "server-only";
// The audit log is append-only and hash-chained: each row's hash covers its content and the previous row's
// hash, so an edited or deleted row breaks the chain (verifyAuditChain finds it). Appends are serialised
// (in-process queue, plus a PostgreSQL advisory lock across instances) so the chain never forks.
import { canonicalJson, sha256Hex } from "@/lib/canonical-json";
import { getDb, isPostgres } from "./client";

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

export function hashAuditRow(prevHash: string, row: AuditEntry & { at: Date }): string {
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
  return sha256Hex(prevHash, body);
}

let queue: Promise<unknown> = Promise.resolve();

export function appendAudit(entry: AuditEntry): Promise<void> {
  const run = queue.then(() => insertChained(entry));
  queue = run.catch(() => undefined);
  return run;
}

async function insertChained(entry: AuditEntry): Promise<void> {
  const db = getDb();
  const at = new Date();
  await db.$transaction(async (tx) => {
    if (isPostgres()) await tx.$executeRawUnsafe(`SELECT pg_advisory_xact_lock(${AUDIT_LOCK_KEY})`);
    const last = await tx.auditLog.findFirst({ orderBy: { seq: "desc" }, select: { hash: true } });
    const prevHash = last?.hash ?? GENESIS;
    await tx.auditLog.create({
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
        details: (entry.details ?? undefined) as never,
        prevHash,
        hash: hashAuditRow(prevHash, { ...entry, at }),
      },
    });
  });
}

export type AuditFilter = {
  actorId?: string;
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
      actorId: filter.actorId,
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

/** Walks the chain in order; returns the first row whose hash or link does not match. */
export async function verifyAuditChain(): Promise<{ ok: true; count: number } | { ok: false; seq: number; problem: string }> {
  const db = getDb();
  let prevHash = GENESIS;
  let count = 0;
  let cursor: number | undefined;
  for (;;) {
    const batch = await db.auditLog.findMany({ where: cursor ? { seq: { gt: cursor } } : undefined, orderBy: { seq: "asc" }, take: 500 });
    if (batch.length === 0) return { ok: true, count };
    for (const row of batch) {
      if (row.prevHash !== prevHash) return { ok: false, seq: row.seq, problem: "link to the previous row is broken (a row was deleted or edited)" };
      const expected = hashAuditRow(prevHash, { ...row, details: row.details as Record<string, unknown> | null });
      if (row.hash !== expected) return { ok: false, seq: row.seq, problem: "row content does not match its hash (edited)" };
      prevHash = row.hash;
      count += 1;
      cursor = row.seq;
    }
  }
}
