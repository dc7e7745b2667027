"use client";
// The open chat's title with Rename and Delete. Rename edits the title in place (Enter saves, Escape cancels);
// Delete is soft and offers Undo on the chat list it leads to, so it asks no confirmation first.
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { PencilIcon, TrashIcon } from "@/components/icons";
import { ModeBadge } from "./mode-badge";

/** The session's agent as the server describes it (lib/runs/agents.ts); null for the default assistant. */
export type ChatAgent = {
  id: string;
  name: string;
  description: string | null;
  starters: string[];
  available: boolean;
} | null;

async function errorOf(res: Response): Promise<string> {
  const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
  return body?.error?.message ?? `the request failed (${res.status})`;
}

/** `model`: the configured model this chat runs on, passed only when more than one is configured (else it says nothing). */
export function ChatHeader({
  sessionId,
  title,
  mode,
  busy,
  agent = null,
  model = null,
}: {
  sessionId: string;
  title: string;
  mode: string;
  busy: boolean;
  agent?: ChatAgent;
  model?: string | null;
}) {
  const router = useRouter();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(title);
  const [problem, setProblem] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  const [showModel, setShowModel] = useState(false);
  const modelLineId = useId();
  const input = useRef<HTMLInputElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (editing) input.current?.select();
  }, [editing]);

  function stopEditing() {
    setEditing(false);
    setProblem(null);
    // Back to where the keyboard was, not to the top of the page.
    requestAnimationFrame(() => renameButton.current?.focus());
  }

  async function save(event: React.FormEvent) {
    event.preventDefault();
    const next = draft.trim();
    if (next === title) return stopEditing();
    setSaving(true);
    const res = await fetch(`/api/sessions/${sessionId}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: next }),
    });
    setSaving(false);
    if (!res.ok) return setProblem(await errorOf(res));
    stopEditing();
    router.refresh();
  }

  async function remove() {
    setProblem(null);
    const res = await fetch(`/api/sessions/${sessionId}`, { method: "DELETE" });
    if (!res.ok) return setProblem(await errorOf(res));
    router.push(`/chat?deleted=${encodeURIComponent(sessionId)}`);
    router.refresh();
  }

  return (
    <header className="border-b border-slate-200 px-4 py-2 dark:border-slate-800">
      <div className="flex items-center justify-between gap-2">
        {editing ? (
          <form onSubmit={(e) => void save(e)} className="flex min-w-0 flex-1 items-center gap-2">
            <label htmlFor="chat-title" className="sr-only">
              Chat title
            </label>
            <input
              id="chat-title"
              ref={input}
              value={draft}
              maxLength={200}
              onChange={(e) => setDraft(e.target.value)}
              onKeyDown={(e) => {
                if (e.key === "Escape") stopEditing();
              }}
              className="min-w-0 flex-1 rounded border border-slate-300 bg-white px-2 py-1 text-base font-semibold dark:border-slate-700 dark:bg-slate-900"
            />
            <button
              type="submit"
              disabled={saving}
              className="rounded-md bg-sky-700 px-2 py-1 text-sm font-medium text-white hover:bg-sky-800"
            >
              Save
            </button>
            <button
              type="button"
              onClick={stopEditing}
              className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700"
            >
              Cancel
            </button>
          </form>
        ) : (
          <h1 data-testid="chat-title" className="min-w-0 truncate text-base font-semibold">
            {title}
          </h1>
        )}
        <div className="flex shrink-0 items-center gap-1">
          {agent ? (
            <span
              data-testid="chat-agent"
              title={
                agent.available
                  ? `This chat runs as the agent ${agent.name}`
                  : "This chat's agent is no longer available: start a new chat"
              }
              className={`max-w-40 truncate rounded-full max-sm:max-w-24 px-2 py-0.5 text-xs font-medium ${agent.available ? "bg-violet-100 text-violet-900 dark:bg-violet-950 dark:text-violet-200" : "bg-slate-200 text-slate-700 line-through dark:bg-slate-800 dark:text-slate-300"}`}
            >
              {/* On a phone the title needs the room: the word "Agent" is read out, not shown. */}
              <span className="max-sm:sr-only">Agent: </span>
              {agent.name}
            </span>
          ) : null}
          {model ? (
            // A tooltip is out of reach on a touch screen: the chip is a button, and a tap shows the whole name below.
            <button
              type="button"
              data-testid="chat-model"
              title={`This chat runs on the model ${model}`}
              aria-expanded={showModel}
              aria-controls={modelLineId}
              onClick={() => setShowModel((shown) => !shown)}
              className="max-w-48 truncate rounded-full bg-slate-100 px-2 py-0.5 font-mono text-xs text-slate-700 hover:bg-slate-200 max-sm:max-w-24 dark:bg-slate-800 dark:text-slate-300 dark:hover:bg-slate-700"
            >
              <span className="sr-only">Model: </span>
              {model}
            </button>
          ) : null}
          <ModeBadge mode={mode} />
          {editing ? null : (
            <>
              <button
                ref={renameButton}
                type="button"
                onClick={() => {
                  setDraft(title);
                  setEditing(true);
                }}
                title="Rename this chat"
                className="rounded-md p-1.5 text-slate-600 hover:bg-slate-100 dark:text-slate-400 dark:hover:bg-slate-800"
              >
                <PencilIcon />
                <span className="sr-only">Rename chat</span>
              </button>
              <button
                type="button"
                onClick={() => void remove()}
                disabled={busy}
                title={busy ? "Stop the running turn before deleting this chat" : "Delete this chat (you can undo)"}
                className="rounded-md p-1.5 text-slate-600 hover:bg-red-50 hover:text-red-700 disabled:opacity-40 dark:text-slate-400 dark:hover:bg-red-950 dark:hover:text-red-300"
              >
                <TrashIcon />
                <span className="sr-only">Delete chat</span>
              </button>
            </>
          )}
        </div>
      </div>
      {model ? (
        <p
          id={modelLineId}
          hidden={!showModel}
          data-testid="chat-model-full"
          className="mt-1 break-all font-mono text-xs text-slate-700 dark:text-slate-300"
        >
          <span className="font-sans">This chat runs on the model </span>
          {model}
        </p>
      ) : null}
      {problem ? (
        <p role="alert" className="mt-1 text-sm text-red-700 dark:text-red-300">
          {problem}
        </p>
      ) : null}
    </header>
  );
}
