import "server-only";
// Transcript messages, ordered by seq within a session. Each append takes its seq from the session's counter
// under the session row's lock, so concurrent writers (two tabs, two instances) never collide or lose a message.
import { getDb, type Tx } from "./client";
import { asSql, json, newId, transactSql, type Sql } from "./sql";

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
  return transactSql((sql) => appendMessageTx({ tx: sql, sessionId, message }));
}

export async function listMessages({ sessionId, limit }: { sessionId: string; limit?: number }): Promise<MessageRow[]> {
  if (limit === undefined) return getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
  const rows = await getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "desc" }, take: limit });
  return rows.reverse();
}

/**
 * Appends inside the caller's transaction. One statement touches the session row, takes the next seq from its
 * counter and locks the row: on PostgreSQL concurrent appends to one session queue behind that lock until
 * commit (no seq collision can abort the transaction); on SQLite the write lock does the same. A rolled-back
 * append rolls its number back too, so a transcript's seqs have no gaps.
 */
export async function appendMessageTx({ tx, sessionId, message }: { tx: Tx | Sql; sessionId: string; message: NewMessage }): Promise<MessageRow> {
  const sql = asSql(tx);
  const values = [newId(), sessionId, message.role, message.content, json(message.parts), message.toolCallId ?? null, message.toolName ?? null, message.runId ?? null, new Date()];
  const columns = `"id", "sessionId", "seq", "role", "content", "parts", "toolCallId", "toolName", "runId", "createdAt"`;
  const take = `UPDATE "ChatSession" SET "messageSeq" = "messageSeq" + 1, "updatedAt" = $9::timestamp(3) WHERE "id" = $2 RETURNING "messageSeq"`;
  let row: MessageRow | undefined;
  if (sql.dialect === "postgres") {
    // One round trip on the hot path: the counter's update feeds the insert (SQLite allows no writes in WITH). A
    // session that is gone leaves the counter without a row and the line without a seq: the statement fails in the
    // database (seq is NOT NULL), not only here, because a pipelined commit may already be on its way behind it.
    [row] = await sql.rows<MessageRow>(`WITH "c" AS (${take}) INSERT INTO "Message" (${columns}) VALUES ($1, $2, (SELECT "messageSeq" FROM "c"), $3, $4, $5::jsonb, $6, $7, $8, $9::timestamp(3)) RETURNING *`, values);
  } else {
    const [counter] = await sql.rows<{ messageSeq: number }>(take, values);
    if (counter) [row] = await sql.rows<MessageRow>(`INSERT INTO "Message" (${columns}) VALUES ($1, $2, $10, $3, $4, $5::jsonb, $6, $7, $8, $9::timestamp(3)) RETURNING *`, [...values, counter.messageSeq]);
  }
  if (!row) throw new Error(`no chat session ${sessionId} to append to`);
  return row;
}

/** The seq of the session's newest user message (0 when there is none), in the caller's transaction. */
export async function findLastUserSeq({ tx, sessionId }: { tx: Tx | Sql; sessionId: string }): Promise<number> {
  const [row] = await asSql(tx).rows<{ seq: number }>(`SELECT "seq" FROM "Message" WHERE "sessionId" = $1 AND "role" = 'user' ORDER BY "seq" DESC LIMIT 1`, [sessionId]);
  return row ? Number(row.seq) : 0;
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
export async function updateToolMessage({ sessionId, toolCallId, content, parts, tx }: { sessionId: string; toolCallId: string; content: string; parts: unknown; tx: Tx | Sql }) {
  const rows = await asSql(tx).rows(`UPDATE "Message" SET "content" = $1, "parts" = $2::jsonb WHERE "sessionId" = $3 AND "toolCallId" = $4 AND "role" = 'tool' RETURNING "id"`, [
    content,
    json(parts),
    sessionId,
    toolCallId,
  ]);
  return rows.length;
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
