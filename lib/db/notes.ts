import "server-only";
import { getDb } from "./client";

export async function createNote({ userId, title, content }: { userId: string; title: string; content: string }) {
  return getDb().note.create({ data: { userId, title, content } });
}

export async function searchNotes({ userId, query, limit }: { userId: string; query: string; limit: number }) {
  return getDb().note.findMany({
    where: { userId, OR: [{ title: { contains: query } }, { content: { contains: query } }] },
    orderBy: { createdAt: "desc" },
    take: limit,
  });
}

export async function findNote({ userId, noteId }: { userId: string; noteId: string }) {
  return getDb().note.findFirst({ where: { id: noteId, userId } });
}

export async function listNotes({ userId }: { userId: string }) {
  return getDb().note.findMany({ where: { userId }, orderBy: { createdAt: "desc" } });
}
