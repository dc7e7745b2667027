"use client";
// One message of the live chat: its bubble, when it was written (<time>), and its actions: copy; on a person's
// message, edit and resend; on the last answer, regenerate. Edit and regenerate truncate the transcript at that
// message on the server (README, "Chat"): the later lines leave the transcript, the model's history and search.
import type { UIMessage } from "ai";
import { useState } from "react";
import { MessageParts } from "./read-only-transcript";

export function messageText(message: UIMessage): string {
  return message.parts
    .map((p) => (p.type === "text" ? p.text : ""))
    .filter(Boolean)
    .join("\n");
}

function createdAtOf(message: UIMessage): string | null {
  const at = (message.metadata as { createdAt?: unknown } | undefined)?.createdAt;
  return typeof at === "string" && !Number.isNaN(Date.parse(at)) ? at : null;
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 2000);
  }
  return (
    <button type="button" onClick={() => void copy()} className={actionClass}>
      {state === "copied" ? "Copied" : state === "failed" ? "Copy failed" : "Copy"}
      <span className="sr-only"> {label}</span>
    </button>
  );
}

const actionClass =
  "rounded px-1.5 py-0.5 text-xs text-slate-600 hover:bg-slate-100 hover:text-slate-900 disabled:opacity-50 dark:text-slate-400 dark:hover:bg-slate-800 dark:hover:text-slate-100";

type Props = {
  message: UIMessage;
  sessionId: string;
  onStop: () => void;
  onAnswer?: (callId: string, choice: string) => void;
  /** Set when the message may be edited now (a person's stored message, no turn running). */
  onEdit?: (text: string) => void;
  /** Set on the last answer when it may be regenerated now. */
  onRegenerate?: () => void;
};

export function MessageRow({ message: m, sessionId, onStop, onAnswer, onEdit, onRegenerate }: Props) {
  const [editing, setEditing] = useState<string | null>(null);
  const at = createdAtOf(m);
  const text = messageText(m);
  const mine = m.role === "user";
  return (
    <li data-message-id={m.id} className={mine ? "flex flex-col items-end" : "flex flex-col items-start"}>
      {editing !== null ? (
        <form
          className="flex w-full max-w-[80%] flex-col gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            const next = editing.trim();
            if (!next || !onEdit) return;
            setEditing(null);
            onEdit(next);
          }}
        >
          <label className="sr-only" htmlFor={`edit-${m.id}`}>
            Edit message
          </label>
          <textarea
            id={`edit-${m.id}`}
            value={editing}
            onChange={(e) => setEditing(e.target.value)}
            rows={3}
            autoFocus
            className="w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
          />
          <div className="flex justify-end gap-2">
            <button
              type="button"
              onClick={() => setEditing(null)}
              className="rounded-md border border-slate-300 px-3 py-1 text-sm dark:border-slate-700"
            >
              Cancel
            </button>
            <button
              type="submit"
              disabled={!onEdit}
              className="rounded-md bg-sky-700 px-3 py-1 text-sm font-medium text-white hover:bg-sky-800 disabled:opacity-50"
            >
              Save and resend
            </button>
          </div>
          <p className="text-right text-xs text-slate-600 dark:text-slate-400">
            The answers after this message are removed and the agent answers again.
          </p>
        </form>
      ) : (
        <div
          data-testid={`message-${m.role}`}
          className={mine ? "max-w-[80%] rounded-2xl bg-sky-700 px-4 py-2 text-white" : "max-w-[90%]"}
        >
          <MessageParts message={m} onStop={onStop} sessionId={sessionId} onAnswer={onAnswer} />
        </div>
      )}
      <div className="mt-1 flex items-center gap-1">
        {at ? (
          <time
            dateTime={at}
            title={new Date(at).toLocaleString()}
            className="px-1.5 text-xs text-slate-600 dark:text-slate-400"
            suppressHydrationWarning
          >
            {new Date(at).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}
          </time>
        ) : null}
        {text ? <CopyButton text={text} label={mine ? "message" : "answer"} /> : null}
        {mine && editing === null ? (
          <button type="button" disabled={!onEdit} onClick={() => setEditing(text)} className={actionClass}>
            Edit<span className="sr-only"> message</span>
          </button>
        ) : null}
        {onRegenerate ? (
          <button type="button" onClick={onRegenerate} className={actionClass}>
            Regenerate<span className="sr-only"> answer</span>
          </button>
        ) : null}
      </div>
    </li>
  );
}
