import "server-only";
// Transcript messages, ordered by seq within a session. Appends retry on a seq collision so that concurrent
// writers (two tabs, two instances) never lose a message.
import { getDb } from "./client";

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

function isUniqueViolation(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { code?: string }).code === "P2002";
}

export async function appendMessage({ sessionId, message }: { sessionId: string; message: NewMessage }): Promise<MessageRow> {
  const db = getDb();
  for (let attempt = 0; ; attempt++) {
    const last = await db.message.findFirst({ where: { sessionId }, orderBy: { seq: "desc" }, select: { seq: true } });
    try {
      const row = await db.message.create({
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
      return row;
    } catch (error) {
      if (!isUniqueViolation(error) || attempt >= 20) throw error;
    }
  }
}

export async function listMessages({ sessionId, limit }: { sessionId: string; limit?: number }): Promise<MessageRow[]> {
  if (limit === undefined) return getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
  const rows = await getDb().message.findMany({ where: { sessionId }, orderBy: { seq: "desc" }, take: limit });
  return rows.reverse();
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
export async function updateToolMessage({ sessionId, toolCallId, content, parts }: { sessionId: string; toolCallId: string; content: string; parts: unknown }) {
  const r = await getDb().message.updateMany({ where: { sessionId, toolCallId, role: "tool" }, data: { content, parts: parts as never } });
  return r.count;
}
