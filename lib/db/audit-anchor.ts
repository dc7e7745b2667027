import "server-only";
// Reads the audit anchoring needs (lib/audit/anchor.ts): whether the log still holds a row a witness recorded, and
// how many rows lead up to it. Kept apart from lib/db/audit.ts, whose append path is the hot one.
import { getDb } from "./client";

/** The row at `seq` (its hash) and the number of rows up to and including it; null when the log holds no such row. */
export async function findAuditAnchorRow({ seq }: { seq: number }): Promise<{ hash: string; countUpTo: number } | null> {
  const db = getDb();
  const row = await db.auditLog.findUnique({ where: { seq }, select: { hash: true } });
  if (!row) return null;
  return { hash: row.hash, countUpTo: await db.auditLog.count({ where: { seq: { lte: seq } } }) };
}
