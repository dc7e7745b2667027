import "server-only";
// ToolServices over lib/db, bound to one user: the memory and sessions tools can only see that user's data.
import type { ToolServices } from "@/lib/tools/context";
import { findNote, searchNotes } from "@/lib/db/notes";
import { findOwnMessage, listMessages, searchOwnTranscripts } from "@/lib/db/messages";
import { findOwnedSession, listOwnedSessions } from "@/lib/db/sessions";

export function createToolServices({ userId }: { userId: string }): ToolServices {
  return {
    async searchMemory({ query, limit }) {
      const notes = await searchNotes({ userId, query, limit });
      const messages = await searchOwnTranscripts({ ownerId: userId, query, limit: Math.max(0, limit - notes.length) });
      return [
        ...notes.map((n) => ({
          id: `note:${n.id}`,
          title: n.title,
          snippet: n.content.slice(0, 200),
          source: "note" as const,
        })),
        ...messages.map((m) => ({
          id: `message:${m.id}`,
          title: m.session.title,
          snippet: m.content.slice(0, 200),
          source: "transcript" as const,
        })),
      ];
    },
    async getMemory({ id }) {
      const [kind, rawId] = id.split(":", 2);
      if (!rawId) return null;
      if (kind === "note") {
        const note = await findNote({ userId, noteId: rawId });
        return note ? { id, title: note.title, content: note.content } : null;
      }
      if (kind === "message") {
        const message = await findOwnMessage({ ownerId: userId, messageId: rawId });
        return message ? { id, title: message.session.title, content: message.content } : null;
      }
      return null;
    },
    async listSessions({ limit }) {
      const sessions = await listOwnedSessions({ ownerId: userId, limit });
      return sessions.map((s) => ({ id: s.id, title: s.title, mode: s.mode, updatedAt: s.updatedAt.toISOString() }));
    },
    async getSessionHistory({ sessionId, limit }) {
      const session = await findOwnedSession({ sessionId, ownerId: userId });
      if (!session) return null;
      const messages = await listMessages({ sessionId, limit });
      return messages.map((m) => ({ role: m.role, content: m.content, createdAt: m.createdAt.toISOString() }));
    },
  };
}
