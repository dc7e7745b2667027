"use client";
import { useChat } from "@ai-sdk/react";
import { DefaultChatTransport, type UIMessage } from "ai";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState, useTransition } from "react";
import { ChatHeader, type ChatAgent } from "./chat-header";
import { useLiveEvents } from "@/components/live-events";
import { MessageParts, RunNotice } from "./read-only-transcript";

type ActiveRun = { id: string; status: string } | null;
/** The page's audited mode-switch server action (components never import app/: the page passes it down). */
export type SwitchMode = (sessionId: string, mode: string) => Promise<{ ok: true; mode: string } | { ok: false; error: string }>;
type Props = { sessionId: string; title: string; mode: string; grantedModes: string[]; initialMessages: UIMessage[]; activeRun?: ActiveRun; switchMode: SwitchMode; agent?: ChatAgent };

export function ChatView({ sessionId, title, mode, grantedModes, initialMessages, activeRun: initialRun = null, switchMode, agent = null }: Props) {
  const router = useRouter();
  const [input, setInput] = useState("");
  const [modeError, setModeError] = useState<string | null>(null);
  const [switching, startSwitch] = useTransition();
  // The session's active run as the server last said: while one waits for an approval (or runs without this
  // tab's stream, e.g. resumed), the composer refuses new messages — the server would answer 409 anyway.
  const [activeRun, setActiveRun] = useState<ActiveRun>(initialRun);
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: "/api/chat",
        prepareSendMessagesRequest: ({ messages }) => ({ body: { sessionId, message: messages[messages.length - 1] } }),
      }),
    [sessionId],
  );
  // After this tab's own stream ends, ask whether the turn is paused for an approval (the composer then says so).
  const refreshRun = useCallback(async () => {
    const res = await fetch(`/api/sessions/${sessionId}`);
    if (res.ok) setActiveRun((await res.json()).activeRun ?? null);
  }, [sessionId]);
  // A send that never reached the server (offline, refused) gives the text back for a retry; one that started
  // streaming was stored there, so it is not offered again.
  const unsent = useRef<{ text: string; streamed: boolean } | null>(null);
  const [restored, setRestored] = useState(false);
  const { messages, sendMessage, status, stop, error, setMessages } = useChat({
    id: sessionId,
    messages: initialMessages,
    transport,
    onFinish: () => {
      unsent.current = null;
      router.refresh();
      void refreshRun();
    },
    onError: () => {
      const failed = unsent.current;
      unsent.current = null;
      if (!failed || failed.streamed) return;
      setInput((current) => current || failed.text);
      setRestored(true);
      setMessages((current) => (current.at(-1)?.role === "user" ? current.slice(0, -1) : current));
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
    setActiveRun(body.activeRun ?? null);
    // A rename or mode switch this tab missed (its stream was connecting or reconnecting): re-read the page.
    if (body.title !== shown.current.title || body.mode !== shown.current.mode) router.refresh();
  }, [sessionId, setMessages, router]);
  // Another tab of this session (or another device) sent a message, renamed the chat, switched its mode or
  // deleted it: the transcript is reloaded, and the page's title and mode re-read from the server.
  const onSessionEvent = useCallback(
    (type: string, data: unknown) => {
      const change = type === "session.updated" ? (data as { payload?: { change?: string } } | null)?.payload?.change : undefined;
      // Deleted here or in another tab: every tab lands on the list with the same Undo (nothing left to reload).
      if (change === "deleted") return router.push(`/chat?deleted=${encodeURIComponent(sessionId)}`);
      void reload();
      if (change === "title" || change === "mode") router.refresh();
    },
    [reload, router, sessionId],
  );
  useLiveEvents({ onEvent: (type, data) => (data as { sessionId?: unknown } | null)?.sessionId === sessionId && onSessionEvent(type, data), onOpen: () => void reload(), sessionId });
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

  function send(text: string) {
    if (!text || busy || blocked) return;
    setInput("");
    unsent.current = { text, streamed: false };
    sends.current += 1;
    setRestored(false);
    void sendMessage({ text });
  }

  function onModeChange(next: string) {
    setModeError(null);
    startSwitch(async () => {
      const result = await switchMode(sessionId, next);
      if (!result.ok) setModeError(result.error);
      router.refresh();
    });
  }

  return (
    <section aria-label="Chat" className="flex min-h-0 flex-1 flex-col">
      <ChatHeader sessionId={sessionId} title={title} mode={mode} busy={busy || activeRun !== null} agent={agent} />
      <ol aria-label="Transcript" aria-live="polite" className="flex-1 space-y-4 overflow-y-auto px-4 py-4">
        {messages.length === 0 && agent && agent.starters.length > 0 ? (
          <li>
            <p className="mb-2 text-sm text-slate-600 dark:text-slate-400">{agent.description ?? `Start a chat with ${agent.name}:`}</p>
            <ul aria-label="Starter prompts" className="grid gap-2 sm:grid-cols-2">
              {agent.starters.map((starter) => (
                <li key={starter}>
                  <button
                    type="button"
                    disabled={busy || blocked}
                    onClick={() => send(starter)}
                    className="w-full rounded-lg border border-slate-300 px-3 py-2 text-left text-sm hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800"
                  >
                    {starter}
                  </button>
                </li>
              ))}
            </ul>
          </li>
        ) : messages.length === 0 ? (
          <li className="text-sm text-slate-600 dark:text-slate-400">
            Ask something, for example “what time is it”. To try the execution gate, type a line like{" "}
            <code className="font-mono">/tool read {"{\"path\":\"README.md\"}"}</code>.
          </li>
        ) : null}
        {messages.map((m) =>
          m.role === "system" ? (
            <RunNotice key={m.id} message={m} />
          ) : (
            <li key={m.id} data-testid={`message-${m.role}`} className={m.role === "user" ? "flex justify-end" : ""}>
              <div className={m.role === "user" ? "max-w-[80%] rounded-2xl bg-sky-700 px-4 py-2 text-white" : "max-w-[90%]"}>
                <MessageParts message={m} onStop={stopHandler} sessionId={sessionId} />
              </div>
            </li>
          ),
        )}
        {error ? (
          <li role="alert" className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200">
            {restored
              ? `Not sent: ${error.message || "the request failed"}. Your message is back in the box below; press Send to try again.`
              : error.message || "The request failed."}
          </li>
        ) : null}
        {/* The scroll anchor is a list item too: an <ol> holds only <li> (axe "list"). */}
        <li ref={bottom} aria-hidden="true" />
      </ol>
      <form onSubmit={onSubmit} className="border-t border-slate-200 p-3 dark:border-slate-800">
        {blocked ? (
          <p role="status" data-testid="composer-blocked" className="mb-2 rounded-md bg-amber-50 px-3 py-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-100">
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
              if (e.key === "Enter" && !e.shiftKey) onSubmit(e);
            }}
            rows={2}
            autoFocus
            aria-disabled={blocked}
            placeholder={blocked ? "Waiting for the current turn…" : "Message the agent…"}
            className="min-h-[44px] flex-1 resize-y rounded-md border border-slate-300 bg-white px-3 py-2 text-sm dark:border-slate-700 dark:bg-slate-900"
          />
          {busy || blocked ? (
            <button type="button" onClick={onStop} className="rounded-md border border-red-400 px-3 py-2 text-sm font-medium text-red-700 dark:text-red-300">
              Stop
            </button>
          ) : (
            <button type="submit" className="rounded-md bg-sky-700 px-3 py-2 text-sm font-medium text-white hover:bg-sky-800">
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
          {modeError ? <span role="alert" className="text-red-700 dark:text-red-300">{modeError}</span> : null}
        </div>
      </form>
    </section>
  );
}
