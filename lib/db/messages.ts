import "server-only";
// Transcript messages, ordered by seq within a session. Each append takes its seq from the session's counter
// under the session row's lock, so concurrent writers (two tabs, two instances) never collide or lose a message.
import type { Prisma } from "@/lib/generated/sqlite/client";
import { sanitizeText } from "@/lib/text-sanitize";
import { getDb, isPostgres, transact, type Tx } from "./client";

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

export async function appendMessage({
  sessionId,
  message,
}: {
  sessionId: string;
  message: NewMessage;
}): Promise<MessageRow> {
  return transact((tx) => appendMessageTx({ tx, sessionId, message }));
}

export async function listMessages({ sessionId, limit }: { sessionId: string; limit?: number }): Promise<MessageRow[]> {
  const where = { sessionId, supersededAt: null };
  if (limit === undefined) return getDb().message.findMany({ where, orderBy: { seq: "asc" } });
  const rows = await getDb().message.findMany({ where, orderBy: { seq: "desc" }, take: limit });
  return rows.reverse();
}

/**
 * Appends inside the caller's transaction. The first statement takes the next seq from the session's counter and
 * so locks the session row: on PostgreSQL concurrent appends to one session queue behind that lock until commit
 * (no seq collision can abort the transaction); on SQLite the write lock does the same. A rolled-back append rolls
 * its number back too, so a transcript's seqs have no gaps. A session that is gone fails the statement (P2025).
 * `seq`: a number the caller took already in this transaction (lib/db/runs.ts claimSessionForRun). `releasing`: the
 * turn of this run ends with this line, so the same write frees the session if it is still this run's (one
 * statement instead of two on the same row; a session held by another run only gives the number).
 */
export async function appendMessageTx({
  tx,
  sessionId,
  message,
  seq: taken,
  releasing,
}: {
  tx: Tx;
  sessionId: string;
  message: NewMessage;
  seq?: number;
  releasing?: string;
}): Promise<MessageRow> {
  const seq =
    taken ??
    (releasing !== undefined ? await takeSeqReleasing(tx, sessionId, releasing) : null) ??
    (await takeSeq(tx, sessionId));
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

async function takeSeq(tx: Tx, sessionId: string): Promise<number> {
  return (
    await tx.chatSession.update({
      where: { id: sessionId },
      data: { messageSeq: { increment: 1 } },
      select: { messageSeq: true },
    })
  ).messageSeq;
}

async function takeSeqReleasing(tx: Tx, sessionId: string, runId: string): Promise<number | null> {
  try {
    return (
      await tx.chatSession.update({
        where: { id: sessionId, activeRunId: runId },
        data: { messageSeq: { increment: 1 }, activeRunId: null },
        select: { messageSeq: true },
      })
    ).messageSeq;
  } catch (error) {
    // Not this run's session any more (or gone): no row matched, and the statement changed nothing.
    if ((error as { code?: string }).code === "P2025") return null;
    throw error;
  }
}

/** The seq of the session's newest user message (0 when there is none), in the caller's transaction. */
export async function findLastUserSeq({ tx, sessionId }: { tx: Tx; sessionId: string }): Promise<number> {
  const row = await tx.message.findFirst({
    where: { sessionId, role: "user", supersededAt: null },
    orderBy: { seq: "desc" },
    select: { seq: true },
  });
  return row?.seq ?? 0;
}

/** Full-text-ish search over the user's own past transcripts (user and assistant text). */
export async function searchOwnTranscripts({
  ownerId,
  query,
  limit,
}: {
  ownerId: string;
  query: string;
  limit: number;
}) {
  return getDb().message.findMany({
    where: {
      content: { contains: query },
      role: { in: ["user", "assistant"] },
      supersededAt: null,
      session: { ownerId },
    },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, sessionId: true, content: true, role: true, session: { select: { title: true } } },
  });
}

export async function findOwnMessage({ ownerId, messageId }: { ownerId: string; messageId: string }) {
  return getDb().message.findFirst({
    where: { id: messageId, supersededAt: null, session: { ownerId } },
    include: { session: { select: { title: true } } },
  });
}

/** Settles a tool message written as pending (an approval was awaited) in place, keeping its position. */
export async function updateToolMessage({
  sessionId,
  toolCallId,
  content,
  parts,
  tx,
}: {
  sessionId: string;
  toolCallId: string;
  content: string;
  parts: unknown;
  tx: Tx;
}): Promise<number> {
  const settled = await tx.message.updateMany({
    where: { sessionId, toolCallId, role: "tool" },
    data: { content, parts: (parts ?? undefined) as Prisma.InputJsonValue | undefined },
  });
  return settled.count;
}

/** The ids of these calls whose tool line still says pending (their outcome was never told to the model). */
export async function listPendingToolLines({
  sessionId,
  toolCallIds,
  tx,
}: {
  sessionId: string;
  toolCallIds: string[];
  tx: Tx;
}): Promise<Set<string>> {
  if (!toolCallIds.length) return new Set();
  const rows = await tx.message.findMany({
    where: { sessionId, role: "tool", toolCallId: { in: toolCallIds } },
    select: { toolCallId: true, parts: true },
  });
  return new Set(
    rows.filter((r) => (r.parts as { status?: unknown } | null)?.status === "pending").map((r) => r.toolCallId!),
  );
}

/** The conversation leading up to a call (its tool line included): what an owner reads before deciding. */
export async function listContextBeforeCall({
  sessionId,
  toolCallId,
  limit,
}: {
  sessionId: string;
  toolCallId: string;
  limit: number;
}): Promise<MessageRow[]> {
  const db = getDb();
  const line = await db.message.findFirst({ where: { sessionId, toolCallId, role: "tool" }, select: { seq: true } });
  const rows = await db.message.findMany({
    where: {
      sessionId,
      role: { in: ["user", "assistant"] },
      supersededAt: null,
      ...(line ? { seq: { lte: line.seq } } : {}),
    },
    orderBy: { seq: "desc" },
    take: limit,
  });
  return rows.reverse();
}

/**
 * In the caller's transaction (which holds the session's run claim): truncates the transcript at the user message
 * `messageId`, that line and every later one marked superseded. "unknown": not a user message of this session;
 * "superseded": truncated already (a concurrent edit won).
 */
export async function supersedeFromMessage({
  tx,
  sessionId,
  messageId,
  at,
}: {
  tx: Tx;
  sessionId: string;
  messageId: string;
  at: Date;
}): Promise<{ seq: number; count: number } | "unknown" | "superseded"> {
  const target = await tx.message.findFirst({
    where: { id: messageId, sessionId, role: "user" },
    select: { seq: true, supersededAt: true },
  });
  if (!target) return "unknown";
  if (target.supersededAt) return "superseded";
  const { count } = await tx.message.updateMany({
    where: { sessionId, seq: { gte: target.seq }, supersededAt: null },
    data: { supersededAt: at },
  });
  return { seq: target.seq, count };
}

/** In the caller's transaction: the session's live tool line for `toolCallId` and whether a user line follows it. */
export async function findToolLineState({
  tx,
  sessionId,
  toolCallId,
}: {
  tx: Tx;
  sessionId: string;
  toolCallId: string;
}) {
  const line = await tx.message.findFirst({
    where: { sessionId, toolCallId, role: "tool", supersededAt: null },
    select: { seq: true, toolName: true, parts: true, content: true },
  });
  if (!line) return null;
  const later = await tx.message.count({
    where: { sessionId, role: "user", supersededAt: null, seq: { gt: line.seq } },
  });
  return { ...line, answered: later > 0 };
}

export type MessageHit = {
  id: string;
  sessionId: string;
  seq: number;
  role: string;
  content: string;
  createdAt: Date;
  session: { title: string };
};

/**
 * The caller's own chats whose live user or assistant text holds `query` as a literal substring, case-insensitive,
 * newest first. Prisma's `contains` is a LIKE whose `%` and `_` stay wildcards (and SQLite's LIKE has no escape
 * character by default), so the match is a plain substring test: strpos / instr over lower(). SQLite's lower()
 * folds ASCII only. Deleted chats, subagent children and client (MCP) sessions are left out, as in the chat list.
 */
export async function searchOwnMessages({
  ownerId,
  query,
  limit,
}: {
  ownerId: string;
  query: string;
  limit: number;
}): Promise<MessageHit[]> {
  const db = getDb();
  // Raw queries skip the client's argument cleaning: a lone surrogate or NUL would fail PostgreSQL's encoding (a 500).
  query = sanitizeText(query);
  if (query === "") return [];
  const rows = isPostgres()
    ? await db.$queryRaw<{ id: string }[]>`SELECT m."id" FROM "Message" m JOIN "ChatSession" s ON s."id" = m."sessionId"
        WHERE s."ownerId" = ${ownerId} AND s."deletedAt" IS NULL AND s."parentId" IS NULL AND s."clientKey" IS NULL
          AND m."supersededAt" IS NULL AND m."role" IN ('user', 'assistant') AND strpos(lower(m."content"), lower(${query})) > 0
        ORDER BY m."createdAt" DESC, m."seq" DESC LIMIT ${limit}`
    : await db.$queryRaw<{ id: string }[]>`SELECT m."id" FROM "Message" m JOIN "ChatSession" s ON s."id" = m."sessionId"
        WHERE s."ownerId" = ${ownerId} AND s."deletedAt" IS NULL AND s."parentId" IS NULL AND s."clientKey" IS NULL
          AND m."supersededAt" IS NULL AND m."role" IN ('user', 'assistant') AND instr(lower(m."content"), lower(${query})) > 0
        ORDER BY m."createdAt" DESC, m."seq" DESC LIMIT ${limit}`;
  if (rows.length === 0) return [];
  const hits = await db.message.findMany({
    where: { id: { in: rows.map((r) => r.id) } },
    select: {
      id: true,
      sessionId: true,
      seq: true,
      role: true,
      content: true,
      createdAt: true,
      session: { select: { title: true } },
    },
  });
  const order = new Map(rows.map((r, i) => [r.id, i]));
  return hits.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
}
