"use client";
// The chat sessions beside the transcript. On a phone the list folds away behind a "Chats" toggle so the
// conversation gets the screen; from the md breakpoint up it is always shown.
import Link from "next/link";
import { useState } from "react";
import { ModeBadge } from "./mode-badge";

export type SessionSummary = { id: string; title: string; mode: string };

/** `newChat` is the page's server action (components never import app/: the page passes it down). */
export function SessionList({ sessions, activeId, newChat }: { sessions: SessionSummary[]; activeId?: string; newChat: () => Promise<void> }) {
  const [open, setOpen] = useState(false);
  return (
    <aside aria-label="Chat sessions" className="flex w-64 shrink-0 flex-col border-r border-slate-200 dark:border-slate-800 max-md:w-full max-md:border-r-0 max-md:border-b">
      <div className="flex gap-2 p-3">
        <form action={newChat} className="flex-1">
          <button type="submit" className="w-full rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white hover:bg-sky-800">
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
        <ul id="session-list" className={`flex-1 overflow-y-auto px-2 pb-3 max-md:max-h-60 ${open ? "" : "max-md:hidden"}`}>
          {sessions.map((s) => (
            <li key={s.id}>
              <Link
                href={`/chat/${s.id}`}
                aria-current={s.id === activeId ? "page" : undefined}
                className={`flex items-center justify-between gap-2 rounded-md px-2 py-1.5 text-sm ${
                  s.id === activeId ? "bg-slate-100 font-medium dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"
                }`}
              >
                <span className="truncate">{s.title}</span>
                <ModeBadge mode={s.mode} compact />
              </Link>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
