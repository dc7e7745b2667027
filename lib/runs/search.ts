import "server-only";
// Search in the text of the caller's own chats (not only their titles): the chat list's search box.
import type { CurrentUser } from "@/lib/auth/guards";
import { searchOwnMessages } from "@/lib/db/messages";

export const SEARCH_LIMIT = 50;

/** A window of the message around the first match, so a hit deep in a long answer still shows why it matched. */
function snippetAround(content: string, query: string): string {
  const at = content.toLowerCase().indexOf(query.toLowerCase());
  const start = Math.max(0, at - 60);
  const text = content.slice(start, start + 200).replace(/\s+/g, " ");
  return `${start > 0 ? "…" : ""}${text}${start + 200 < content.length ? "…" : ""}`;
}

export async function searchChats({ user, query }: { user: CurrentUser; query: string }) {
  const hits = await searchOwnMessages({ ownerId: user.id, query, limit: SEARCH_LIMIT });
  return hits.map((h) => ({
    sessionId: h.sessionId,
    title: h.session.title,
    messageId: h.id,
    role: h.role,
    snippet: snippetAround(h.content, query),
    createdAt: h.createdAt.toISOString(),
  }));
}
