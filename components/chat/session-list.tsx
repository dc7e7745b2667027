"use client";
// The chat sessions beside the transcript. On a phone the list folds away behind a "Chats" toggle so the
// conversation gets the screen; from the md breakpoint up it is always shown. The search box filters the titles
// and searches the text of the messages (MessageSearch). The list is grouped by the day a chat was last used.
import Link from "next/link";
import { useState, useSyncExternalStore } from "react";
import { SearchIcon } from "@/components/icons";
import { ModeBadge } from "./mode-badge";
import { MessageSearch } from "./message-search";

export type SessionSummary = { id: string; title: string; mode: string; updatedAt?: Date | string };

const DAY = 86_400_000;
const noop = () => () => {};

/** Today, Yesterday, Previous 7 days, Earlier: by the browser's calendar (the server renders one ungrouped list). */
function groupByDate(
  sessions: SessionSummary[],
  now: number | null,
): Array<{ label: string | null; sessions: SessionSummary[] }> {
  if (now === null) return [{ label: null, sessions }];
  const midnight = new Date(now).setHours(0, 0, 0, 0);
  const labelOf = (s: SessionSummary) => {
    const at = s.updatedAt ? new Date(s.updatedAt).getTime() : 0;
    return at >= midnight
      ? "Today"
      : at >= midnight - DAY
        ? "Yesterday"
        : at >= midnight - 7 * DAY
          ? "Previous 7 days"
          : "Earlier";
  };
  const groups: Array<{ label: string; sessions: SessionSummary[] }> = [];
  for (const s of sessions) {
    const label = labelOf(s);
    const last = groups.at(-1);
    if (last?.label === label) last.sessions.push(s);
    else groups.push({ label, sessions: [s] });
  }
  return groups;
}

/** `newChat` is the page's server action (components never import app/: the page passes it down). */
export function SessionList({
  sessions,
  activeId,
  newChat,
}: {
  sessions: SessionSummary[];
  activeId?: string;
  newChat: () => Promise<void>;
}) {
  const [open, setOpen] = useState(false);
  const [query, setQuery] = useState("");
  const needle = query.trim().toLocaleLowerCase();
  const shown = needle === "" ? sessions : sessions.filter((s) => s.title.toLocaleLowerCase().includes(needle));
  // The clock is read in the browser only, so the server's render and hydration agree.
  const now = useSyncExternalStore(
    noop,
    () => Math.floor(Date.now() / 60_000) * 60_000,
    () => null,
  );
  return (
    <aside
      aria-label="Chat sessions"
      className="flex w-64 shrink-0 flex-col border-r border-slate-200 dark:border-slate-800 max-md:w-full max-md:border-r-0 max-md:border-b"
    >
      <div className="flex gap-2 p-3">
        <form action={newChat} className="flex-1">
          <button
            type="submit"
            className="w-full rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white hover:bg-sky-800"
          >
            New chat
          </button>
        </form>
        <button
          type="button"
          onClick={() => setOpen(!open)}
          aria-expanded={open}
          aria-controls="session-list"
          className="rounded-md border border-slate-300 px-3 py-2 text-sm md:hidden dark:border-slate-700"
        >
          {open ? "Hide chats" : `Chats (${sessions.length})`}
        </button>
      </div>
      {sessions.length === 0 ? (
        <p className="px-3 pb-3 text-sm text-slate-600 dark:text-slate-400">No chats yet. Start one with “New chat”.</p>
      ) : (
        <div id="session-list" className={`flex min-h-0 flex-1 flex-col ${open ? "" : "max-md:hidden"}`}>
          <div className="relative px-3 pb-2">
            <label htmlFor="session-search" className="sr-only">
              Search chats
            </label>
            <SearchIcon className="pointer-events-none absolute top-2 left-5 h-4 w-4 text-slate-500" />
            <input
              id="session-search"
              type="search"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              placeholder="Search chats"
              className="w-full rounded-md border border-slate-300 bg-white py-1 pr-2 pl-7 text-sm dark:border-slate-700 dark:bg-slate-900"
            />
          </div>
          {shown.length === 0 ? (
            <p role="status" className="px-3 pb-3 text-sm text-slate-600 dark:text-slate-400">
              No chat title contains “{query.trim()}”.
            </p>
          ) : (
            <ul aria-label="Chats" className="flex-1 overflow-y-auto px-2 pb-3 max-md:max-h-60">
              {groupByDate(shown, now).map((group) => (
                <li key={group.label ?? "all"}>
                  {group.label ? (
                    <h2
                      className="px-2 pt-2 pb-1 text-xs font-semibold text-slate-600 dark:text-slate-400"
                      data-testid="date-group"
                    >
                      {group.label}
                    </h2>
                  ) : null}
                  <ul aria-label={group.label ?? undefined}>
                    {group.sessions.map((s) => (
                      <li key={s.id}>
                        <Link
                          href={`/chat/${s.id}`}
                          aria-current={s.id === activeId ? "page" : undefined}
                          className={`flex items-center justify-between gap-2 rounded-md px-2 py-1.5 text-sm ${
                            s.id === activeId
                              ? "bg-slate-100 font-medium dark:bg-slate-800"
                              : "hover:bg-slate-50 dark:hover:bg-slate-900"
                          }`}
                        >
                          <span className="truncate">{s.title}</span>
                          <ModeBadge mode={s.mode} compact />
                        </Link>
                      </li>
                    ))}
                  </ul>
                </li>
              ))}
            </ul>
          )}
          <MessageSearch query={query.trim().slice(0, 200)} />
        </div>
      )}
    </aside>
  );
}
