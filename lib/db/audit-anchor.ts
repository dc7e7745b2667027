import "server-only";
// Reads the audit anchoring needs (lib/audit/anchor.ts): whether the log still holds a row a witness recorded, and
// how many rows lead up to it. Kept apart from lib/db/audit.ts, whose append path is the hot one.
import { getDb, isPostgres } from "./client";

/** The row at `seq` (its hash) and the number of rows up to and including it; null when the log holds no such row. */
export async function findAuditAnchorRow({
  seq,
}: {
  seq: number;
}): Promise<{ hash: string; countUpTo: number } | null> {
  const db = getDb();
  const row = await db.auditLog.findUnique({ where: { seq }, select: { hash: true } });
  if (!row) return null;
  return { hash: row.hash, countUpTo: await db.auditLog.count({ where: { seq: { lte: seq } } }) };
}

/**
 * Whether every commit so far is on disk. SQLite runs in WAL mode with synchronous=NORMAL (lib/db/sqlite-adapter.ts):
 * a commit is in the WAL but not yet synced, and a checkpoint syncs the WAL before it copies it back. True when the
 * checkpoint copied every frame (each one synced); false when a reader kept some back (the next pass tries again).
 * PostgreSQL flushes every commit before it answers.
 */
export async function syncCommits(): Promise<boolean> {
  if (isPostgres()) return true;
  const rows = await getDb().$queryRawUnsafe<Array<{ busy: unknown; log: unknown; checkpointed: unknown }>>(
    "PRAGMA wal_checkpoint(PASSIVE)",
  );
  const row = rows[0];
  // Not in WAL mode (log -1): every commit was synced as it was made.
  return !row || Number(row.log) < 0 || Number(row.checkpointed) >= Number(row.log);
}
