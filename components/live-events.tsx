"use client";
// One event stream per browser tab (GET /api/me/events, with ?session=<id> while a chat is open), shared by every
// part of the page that shows something live: the account, the owners' inbox and its nav badge, the open chat.
// Browsers allow six HTTP/1.1 connections per site across all tabs, and a stream holds one for as long as the page
// is open; one stream per part of the page (three on an owner's chat) made a second tab take all six, after which
// no request of either tab went out.
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useEventSource } from "@/components/use-event-source";

type Listener = { onEvent: (type: string, data: unknown) => void; onOpen?: () => void; onError?: () => void };
type Hub = { subscribe: (listener: Listener) => () => void; openSession: (sessionId: string | null) => void };

const HubContext = createContext<Hub | null>(null);

export function LiveEvents({ children }: { children: ReactNode }) {
  const listeners = useRef(new Set<Listener>());
  const [sessionId, openSession] = useState<string | null>(null);
  // Set when the server closed this tab's stream for good (too many open streams of this person): no reconnecting.
  const [ended, setEnded] = useState(false);
  const each = (call: (l: Listener) => void) => listeners.current.forEach(call);
  useEventSource(
    ended ? null : sessionId ? `/api/me/events?${new URLSearchParams({ session: sessionId })}` : "/api/me/events",
    (type, data) => each((l) => l.onEvent(type, data)),
    () => each((l) => l.onOpen?.()),
    () => each((l) => l.onError?.()),
    () => setEnded(true),
  );
  const hub = useMemo<Hub>(
    () => ({
      subscribe: (listener) => {
        listeners.current.add(listener);
        return () => void listeners.current.delete(listener);
      },
      openSession,
    }),
    [],
  );
  return (
    <HubContext.Provider value={hub}>
      {ended && (
        <p
          role="status"
          data-testid="live-events-ended"
          className="border-b border-amber-300 bg-amber-50 px-4 py-2 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950 dark:text-amber-50"
        >
          Live updates stopped in this tab: you have more tabs open than the server keeps live. Reload this tab to
          resume them here.
        </p>
      )}
      {children}
    </HubContext.Provider>
  );
}

/**
 * The tab's live events for one part of the page. `sessionId` adds that chat's events to the tab's stream while the
 * caller is mounted (the stream reconnects with it, and `onOpen` runs: the moment to re-read current state).
 */
export function useLiveEvents({ onEvent, onOpen, onError, sessionId }: Listener & { sessionId?: string }) {
  const hub = useContext(HubContext);
  const handlers = useRef<Listener>({ onEvent, onOpen, onError });
  useEffect(() => {
    handlers.current = { onEvent, onOpen, onError };
  });
  useEffect(() => {
    if (!hub) return;
    return hub.subscribe({
      onEvent: (t, d) => handlers.current.onEvent(t, d),
      onOpen: () => handlers.current.onOpen?.(),
      onError: () => handlers.current.onError?.(),
    });
  }, [hub]);
  useEffect(() => {
    if (!hub || !sessionId) return;
    hub.openSession(sessionId);
    return () => hub.openSession(null);
  }, [hub, sessionId]);
}
