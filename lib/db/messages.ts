import "server-only";
// Transcript messages, ordered by seq within a session. Each append takes its seq from the session's counter
// under the session row's lock, so concurrent writers (two tabs, two instances) never collide or lose a message.
import type { Prisma } from "@/lib/generated/sqlite/client";
import { getDb, transact, type Tx } from "./client";

export type MessageRole = "user" | "assistant" | "tool" | "system";

export type NewMessage = {
  role: MessageRole;
  content: string;
  parts?: unknown;
  toolCallId?: string | null;
  toolName?: string | null;
  runId?: string | null;
};

export type MessageRow = {
  id: string;
  sessionId: string;
  seq: number;
  role: string;
  content: string;
  parts: unknown;
  toolCallId: string | null;
  toolName: string | null;
  runId: string | null;
  createdAt: Date;
};

export async function appendMessage({ sessionId, message }: { sessionId: string; message: NewMessage }): Promise<MessageRow> {
  return transact((tx) => appendMessageTx({ tx, sessionId, message }));
}

export async function listMessages({ sessionId, limit }: { sessionId: string; limit?: number }): Promise<MessageRow[]> {
  if (limit === undefined) return getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
  const rows = await getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "desc" }, take: limit });
  return rows.reverse();
}

/**
 * Appends inside the caller's transaction. The first statement takes the next seq from the session's counter and
 * so locks the session row: on PostgreSQL concurrent appends to one session queue behind that lock until commit
 * (no seq collision can abort the transaction); on SQLite the write lock does the same. A rolled-back append rolls
 * its number back too, so a transcript's seqs have no gaps. A session that is gone fails the statement (P2025).
 */
export async function appendMessageTx({ tx, sessionId, message }: { tx: Tx; sessionId: string; message: NewMessage }): Promise<MessageRow> {
  const { messageSeq: seq } = await tx.chatSession.update({ where: { id: sessionId }, data: { messageSeq: { increment: 1 } }, select: { messageSeq: true } });
  return tx.message.create({
    data: {
      sessionId,
      seq,
      role: message.role,
      content: message.content,
      parts: (message.parts ?? undefined) as Prisma.InputJsonValue | undefined, // absent: SQL NULL
      toolCallId: message.toolCallId ?? null,
      toolName: message.toolName ?? null,
      runId: message.runId ?? null,
    },
  });
}

/** The seq of the session's newest user message (0 when there is none), in the caller's transaction. */
export async function findLastUserSeq({ tx, sessionId }: { tx: Tx; sessionId: string }): Promise<number> {
  const row = await tx.message.findFirst({ where: { sessionId, role: "user" }, orderBy: { seq: "desc" }, select: { seq: true } });
  return row?.seq ?? 0;
}

/** Full-text-ish search over the user's own past transcripts (user and assistant text). */
export async function searchOwnTranscripts({ ownerId, query, limit }: { ownerId: string; query: string; limit: number }) {
  return getDb().message.findMany({
    where: { content: { contains: query }, role: { in: ["user", "assistant"] }, session: { ownerId } },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, sessionId: true, content: true, role: true, session: { select: { title: true } } },
  });
}

export async function findOwnMessage({ ownerId, messageId }: { ownerId: string; messageId: string }) {
  return getDb().message.findFirst({ where: { id: messageId, session: { ownerId } }, include: { session: { select: { title: true } } } });
}

/** Settles a tool message written as pending (an approval was awaited) in place, keeping its position. */
export async function updateToolMessage({ sessionId, toolCallId, content, parts, tx }: { sessionId: string; toolCallId: string; content: string; parts: unknown; tx: Tx }): Promise<number> {
  const settled = await tx.message.updateMany({ where: { sessionId, toolCallId, role: "tool" }, data: { content, parts: (parts ?? undefined) as Prisma.InputJsonValue | undefined } });
  return settled.count;
}

/** The conversation leading up to a call (its tool line included): what an owner reads before deciding. */
export async function listContextBeforeCall({ sessionId, toolCallId, limit }: { sessionId: string; toolCallId: string; limit: number }): Promise<MessageRow[]> {
  const db = getDb();
  const line = await db.message.findFirst({ where: { sessionId, toolCallId, role: "tool" }, select: { seq: true } });
  const rows = await db.message.findMany({
    where: { sessionId, role: { in: ["user", "assistant"] }, ...(line ? { seq: { lte: line.seq } } : {}) },
    orderBy: { seq: "desc" },
    take: limit,
  });
  return rows.reverse();
}
