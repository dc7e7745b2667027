"use client";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, useTransition } from "react";
import { ChatHeader, type ChatAgent } from "./chat-header";
import { useLiveEvents } from "@/components/live-events";
import { RunNotice } from "./read-only-transcript";
import { EmptyState } from "./empty-state";
import { MessageRow, messageText } from "./message-row";
import { useDraft } from "./use-draft";
import { useConnection } from "./use-connection";
import { OpenCardsContext, useOpenCardsState } from "./use-open-cards";

type ActiveRun = { id: string; status: string } | null;
/** The page's audited mode-switch server action (components never import app/: the page passes it down). */
export type SwitchMode = (
  sessionId: string,
  mode: string,
) => Promise<{ ok: true; mode: string } | { ok: false; error: string }>;
type Props = {
  sessionId: string;
  title: string;
  mode: string;
  grantedModes: string[];
  initialMessages: UIMessage[];
  activeRun?: ActiveRun;
  switchMode: SwitchMode;
  agent?: ChatAgent;
  model?: string | null;
};

export function ChatView({
  sessionId,
  title,
  mode,
  grantedModes,
  initialMessages,
  activeRun: initialRun = null,
  switchMode,
  agent = null,
  model = null,
}: Props) {
  const router = useRouter();
  const [input, setInput] = useDraft(sessionId);
  const { online, onStreamError, onStreamOpen } = useConnection();
  const [offlineRefused, setOfflineRefused] = useState(false);
  // Ids the server gave (edit and regenerate name a stored message; a just-streamed one has a client id until reloaded).
  const [storedIds, setStoredIds] = useState(() => new Set(initialMessages.map((m) => m.id)));
  const [modeError, setModeError] = useState<string | null>(null);
  const openCards = useOpenCardsState();
  const [switching, startSwitch] = useTransition();
  // The session's active run as the server last said: while one waits for an approval (or runs without this
  // tab's stream, e.g. resumed), the composer refuses new messages — the server would answer 409 anyway.
  const [activeRun, setActiveRun] = useState<ActiveRun>(initialRun);
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: "/api/chat",
        prepareSendMessagesRequest: ({ messages, body }) => ({
          body: { ...body, sessionId, message: messages[messages.length - 1] },
        }),
      }),
    [sessionId],
  );
  // A send that never reached the server (offline, refused) gives the text back for a retry; one that started
  // streaming was stored there, so it is not offered again.
  const unsent = useRef<{ text: string; streamed: boolean; rewound: boolean } | null>(null);
  const [restored, setRestored] = useState(false);
  const { messages, sendMessage, status, stop, error, setMessages } = useChat({
    id: sessionId,
    messages: initialMessages,
    transport,
    onFinish: () => {
      unsent.current = null;
      router.refresh();
      // The stored transcript (server ids and times, so the new messages can be edited), and any paused run.
      busyRef.current = false;
      void reload();
    },
    onError: () => {
      const failed = unsent.current;
      unsent.current = null;
      if (!failed || failed.streamed) return;
      if (!input) setInput(failed.text);
      setRestored(true);
      setMessages((current) => (current.at(-1)?.role === "user" ? current.slice(0, -1) : current));
      // A refused edit (another edit won, a turn is running) truncated only this tab's copy: read the real one.
      if (failed.rewound) {
        busyRef.current = false;
        void reload();
      }
    },
  });
  useEffect(() => {
    if (status === "streaming" && unsent.current) unsent.current.streamed = true;
  }, [status]);
  const busy = status === "submitted" || status === "streaming";
  const busyRef = useRef(busy);
  useEffect(() => {
    busyRef.current = busy;
  }, [busy]);

  // A run paused for an approval continues on the server (maybe on another instance, maybe after a
  // restart); the session's event stream says when, and the transcript is reloaded from the database.
  const shown = useRef({ title, mode });
  useEffect(() => {
    shown.current = { title, mode };
  }, [title, mode]);
  // Counts this tab's sends, set at once on submit (busyRef follows `status` only after a render): a reload whose
  // answer arrives after a send began holds the transcript from before that send, and applying it would drop the
  // message just sent (the stream then adds the answer to a transcript without its question).
  const sends = useRef(0);
  const reload = useCallback(async () => {
    if (busyRef.current) return;
    const sendsBefore = sends.current;
    const res = await fetch(`/api/sessions/${sessionId}`);
    if (!res.ok) return;
    const body = await res.json();
    if (busyRef.current || sends.current !== sendsBefore) return;
    setMessages(body.uiMessages);
    setStoredIds(new Set((body.uiMessages as UIMessage[]).map((m) => m.id)));
    setActiveRun(body.activeRun ?? null);
    // A rename or mode switch this tab missed (its stream was connecting or reconnecting): re-read the page.
    if (body.title !== shown.current.title || body.mode !== shown.current.mode) router.refresh();
  }, [sessionId, setMessages, router]);
  // Another tab of this session (or another device) sent a message, renamed the chat, switched its mode or
  // deleted it: the transcript is reloaded, and the page's title and mode re-read from the server.
  const onSessionEvent = useCallback(
    (type: string, data: unknown) => {
      const change =
        type === "session.updated" ? (data as { payload?: { change?: string } } | null)?.payload?.change : undefined;
      // Deleted here or in another tab: every tab lands on the list with the same Undo (nothing left to reload).
      if (change === "deleted") return router.push(`/chat?deleted=${encodeURIComponent(sessionId)}`);
      void reload();
      if (change === "title" || change === "mode") router.refresh();
    },
    [reload, router, sessionId],
  );
  useLiveEvents({
    onEvent: (type, data) =>
      (data as { sessionId?: unknown } | null)?.sessionId === sessionId && onSessionEvent(type, data),
    onOpen: () => {
      onStreamOpen();
      setOfflineRefused(false);
      void reload();
    },
    onError: onStreamError,
    sessionId,
  });
  const bottom = useRef<HTMLLIElement>(null);
  // Block body on purpose: newer Chromium returns a Promise from scrollIntoView, and an effect must not.
  useEffect(() => {
    void bottom.current?.scrollIntoView({ block: "end" });
  }, [messages]);

  async function onStop() {
    // Stop the turn on the server, wherever it runs (tools get the abort signal), then stop reading the stream.
    await fetch(`/api/sessions/${sessionId}/stop`, { method: "POST" });
    await stop();
    busyRef.current = false;
    await reload();
    router.refresh();
  }
  const stopHandler = () => void onStop();
  const blocked = !busy && activeRun !== null;

  function onSubmit(event: React.FormEvent) {
    event.preventDefault();
    send(input.trim());
  }

  /** `rewindFrom`: an edit or regenerate (the server truncates there); `answerTo`: an ask_user choice. */
  function send(text: string, extra: { rewindFrom?: string; answerTo?: string } = {}) {
    if (!text || busy || blocked) return;
    // No connection: refuse at once and keep the text (a request now would only fail after a timeout).
    if (!online) {
      if (!input) setInput(text);
      setOfflineRefused(true);
      return;
    }
    setOfflineRefused(false);
    if (!extra.rewindFrom && !extra.answerTo) setInput("");
    unsent.current = { text, streamed: false, rewound: !!extra.rewindFrom };
    sends.current += 1;
    setRestored(false);
    if (extra.rewindFrom) {
      const cut = messages.findIndex((m) => m.id === extra.rewindFrom);
      if (cut >= 0) setMessages(messages.slice(0, cut));
    }
    void sendMessage({ text, metadata: { createdAt: new Date().toISOString() } }, { body: extra });
  }

  const idle = !busy && !blocked;
  const lastUser = messages.findLastIndex((m) => m.role === "user");
  const lastAnswer = messages.findLastIndex((m) => m.role === "assistant");

  function onModeChange(next: string) {
    setModeError(null);
    startSwitch(async () => {
      const result = await switchMode(sessionId, next);
      if (!result.ok) setModeError(result.error);
      router.refresh();
    });
  }

  return (
    <OpenCardsContext.Provider value={openCards}>
      <section aria-label="Chat" className="flex min-h-0 flex-1 flex-col">
        <ChatHeader
          sessionId={sessionId}
          title={title}
          mode={mode}
          busy={busy || activeRun !== null}
          agent={agent}
          model={model}
        />
        <ol aria-label="Transcript" aria-live="polite" className="flex-1 space-y-4 overflow-y-auto px-4 py-4">
          {messages.length === 0 ? <EmptyState agent={agent} disabled={!idle} onStart={(text) => send(text)} /> : null}
          {messages.map((m, i) => {
            if (m.role === "system") return <RunNotice key={m.id} message={m} />;
            const stored = storedIds.has(m.id);
            const regenerateFrom = i === lastAnswer && lastUser >= 0 && lastUser < i ? messages[lastUser] : undefined;
            return (
              <MessageRow
                key={m.id}
                message={m}
                sessionId={sessionId}
                onStop={stopHandler}
                // Only the newest question is open: a reply after it (or a running turn) closes it.
                onAnswer={idle && i > lastUser ? (callId, choice) => send(choice, { answerTo: callId }) : undefined}
                onEdit={idle && stored && m.role === "user" ? (text) => send(text, { rewindFrom: m.id }) : undefined}
                onRegenerate={
                  idle && regenerateFrom && storedIds.has(regenerateFrom.id)
                    ? () => send(messageText(regenerateFrom), { rewindFrom: regenerateFrom.id })
                    : undefined
                }
              />
            );
          })}
          {error ? (
            <li
              role="alert"
              className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
            >
              {restored
                ? `Not sent: ${errorText(error)}. Your message is back in the box below; press Send to try again.`
                : errorText(error)}
            </li>
          ) : null}
          {/* The scroll anchor is a list item too: an <ol> holds only <li> (axe "list"). */}
          <li ref={bottom} aria-hidden="true" />
        </ol>
        <form onSubmit={onSubmit} className="border-t border-slate-200 p-3 dark:border-slate-800">
          {!online ? (
            <p
              role="status"
              data-testid="reconnecting"
              className="mb-2 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100"
            >
              Reconnecting…{" "}
              {offlineRefused
                ? "Not sent: there is no connection to the server. Your message is kept in the box; send it again once reconnected."
                : "Your draft is kept."}
            </p>
          ) : null}
          {blocked ? (
            <p
              role="status"
              data-testid="composer-blocked"
              className="mb-2 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100"
            >
              {activeRun?.status === "waiting_approval"
                ? "Waiting for an owner's approval. You can send your next message once it is decided, or press Stop to end this turn."
                : "The agent is still working on this turn. You can send your next message when it finishes, or press Stop."}
            </p>
          ) : null}
          <div className="flex items-end gap-2">
            <label className="sr-only" htmlFor="composer">
              Message
            </label>
            <textarea
              id="composer"
              value={input}
              onChange={(e) => setInput(e.target.value)}
              onKeyDown={(e) => {
                // An Enter that confirms an IME composition (Japanese, Chinese, Korean input) is not a send.
                if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing && e.keyCode !== 229) onSubmit(e);
              }}
              rows={2}
              autoFocus
              aria-disabled={blocked}
              placeholder={blocked ? "Waiting for the current turn…" : "Message the agent…"}
              className="min-h-[44px] flex-1 resize-y rounded-md border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
            />
            {busy || blocked ? (
              <button
                type="button"
                onClick={onStop}
                className="rounded-md border border-red-400 px-3 py-2 text-sm font-medium text-red-700 dark:text-red-300"
              >
                Stop
              </button>
            ) : (
              <button
                type="submit"
                className="rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white hover:bg-sky-800"
              >
                Send
              </button>
            )}
          </div>
          <div className="mt-2 flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
            <label htmlFor="mode-select">Mode</label>
            <select
              id="mode-select"
              value={mode}
              disabled={switching || busy || grantedModes.length < 2}
              onChange={(e) => onModeChange(e.target.value)}
              className="rounded border border-slate-300 bg-white px-1 py-0.5 dark:border-slate-700 dark:bg-slate-900"
            >
              {["chat_safe", "coding"].map((m) => (
                <option key={m} value={m} disabled={!grantedModes.includes(m)}>
                  {m}
                  {grantedModes.includes(m) ? "" : " (not granted)"}
                </option>
              ))}
            </select>
            {grantedModes.length < 2 ? <span>Only chat_safe is granted to you; an admin can grant coding.</span> : null}
            {modeError ? (
              <span role="alert" className="text-red-700 dark:text-red-300">
                {modeError}
              </span>
            ) : null}
          </div>
        </form>
      </section>
    </OpenCardsContext.Provider>
  );
}

/** The server's JSON error ({ error: { message } }) as a sentence; a network failure's own text otherwise. */
function errorText(error: Error): string {
  try {
    const body = JSON.parse(error.message) as { error?: { message?: unknown } };
    if (typeof body.error?.message === "string") return body.error.message;
  } catch {
    // not JSON
  }
  return error.message || "the request failed";
}
