"use client";
// Search in the text of the person's own chats (GET /api/search), below the title matches of the chat list.
import Link from "next/link";
import { useEffect, useState } from "react";

type Hit = { sessionId: string; title: string; messageId: string; role: string; snippet: string; createdAt: string };
type Found = { query: string; hits: Hit[] | null; error?: string };

export function MessageSearch({ query }: { query: string }) {
  const [found, setFound] = useState<Found>({ query: "", hits: [] });
  useEffect(() => {
    if (query === "") return;
    const controller = new AbortController();
    // Typing pauses briefly before a search goes out; a newer query aborts the older one.
    const timer = setTimeout(() => {
      fetch(`/api/search?${new URLSearchParams({ q: query })}`, { signal: controller.signal })
        .then(async (res) => {
          const body = (await res.json().catch(() => null)) as { results?: Hit[]; error?: { message?: string } } | null;
          setFound(
            res.ok && body?.results
              ? { query, hits: body.results }
              : { query, hits: null, error: body?.error?.message ?? "the search failed" },
          );
        })
        .catch(() => {
          if (!controller.signal.aborted) setFound({ query, hits: null, error: "the search failed (no connection?)" });
        });
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [query]);
  if (query === "" || found.query !== query) return null;
  return (
    <section aria-label="Messages found" className="border-t border-slate-200 px-2 pt-2 dark:border-slate-800">
      <h2 className="px-2 text-xs font-semibold text-slate-600 uppercase dark:text-slate-400">In messages</h2>
      {found.hits === null ? (
        <p role="alert" className="px-2 py-1 text-sm text-red-700 dark:text-red-300">
          {found.error}
        </p>
      ) : found.hits.length === 0 ? (
        <p role="status" className="px-2 py-1 text-sm text-slate-600 dark:text-slate-400">
          No message contains “{query}”.
        </p>
      ) : (
        <ul className="max-h-72 overflow-y-auto pb-2">
          {found.hits.map((h) => (
            <li key={h.messageId}>
              <Link
                href={`/chat/${h.sessionId}`}
                data-testid="search-hit"
                className="block rounded-md px-2 py-1.5 text-sm hover:bg-slate-50 dark:hover:bg-slate-900"
              >
                <span className="block truncate font-medium">{h.title}</span>
                <span className="block text-xs text-slate-600 [overflow-wrap:anywhere] dark:text-slate-400">
                  {h.snippet}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
