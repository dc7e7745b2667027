"use client";
import { useEffect, useRef } from "react";

/**
 * Subscribes to a server-sent event stream. The browser's EventSource reconnects by itself and sends
 * Last-Event-ID, so the server replays what was missed. `onOpen` runs on every (re)connection, which is
 * the moment to refetch current state.
 */
export function useEventSource(url: string | null, onEvent: (type: string, data: unknown) => void, onOpen?: () => void, onError?: () => void) {
  const handlers = useRef({ onEvent, onOpen, onError });
  useEffect(() => {
    handlers.current = { onEvent, onOpen, onError };
  });
  useEffect(() => {
    if (!url) return;
    const source = new EventSource(url);
    const listener = (e: MessageEvent) => {
      let data: unknown = e.data;
      try {
        data = JSON.parse(e.data);
      } catch {
        // keep the raw text
      }
      handlers.current.onEvent(e.type, data);
    };
    const types = ["approval.requested", "approval.resolved", "approval.expired", "run.updated", "call.updated", "session.updated", "account.changed", "message"];
    types.forEach((t) => source.addEventListener(t, listener as EventListener));
    source.onopen = () => handlers.current.onOpen?.();
    // A dropped or refused connection (the browser retries a dropped one by itself; a refused one stays closed).
    source.onerror = () => handlers.current.onError?.();
    return () => source.close();
  }, [url]);
}
