// The writes one allowed tool call made before issue 11 (the code at 8e5ef92), kept here as they were so that
// the record benchmark compares the recorder with the real "before" in one process on one database, not with
// today's faster helpers: the audit row (a Prisma transaction: advisory lock on PostgreSQL, read the chain's last
// row, insert), then the transcript line (read the last seq, insert, touch the session), all through Prisma's
// model API. Only the row hash is today's (keyed; the old one was a plain SHA-256 of the same length).
import { hashAuditRow, type AuditEntry } from "@/lib/db/audit";
import { getDb, isPostgres } from "@/lib/db/client";
import type { NewMessage } from "@/lib/db/messages";

const GENESIS = "0".repeat(64);
const AUDIT_LOCK_KEY = 7_311_001;

export async function legacyAppendAudit(entry: AuditEntry): Promise<void> {
  const at = new Date();
  await getDb().$transaction(async (tx) => {
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

export async function legacyAppendMessage({
  sessionId,
  message,
}: {
  sessionId: string;
  message: NewMessage;
}): Promise<void> {
  const db = getDb();
  const last = await db.message.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
  await db.message.create({
    data: {
      sessionId,
      seq: (last?.seq ?? 0) + 1,
      role: message.role,
      content: message.content,
      parts: (message.parts ?? undefined) as never,
      toolCallId: message.toolCallId ?? null,
      toolName: message.toolName ?? null,
      runId: message.runId ?? null,
    },
  });
  await db.chatSession.update({ where: { id: sessionId }, data: { updatedAt: new Date() } });
}
