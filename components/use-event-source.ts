"use client";
import { useEffect, useRef } from "react";

/**
 * Subscribes to a server-sent event stream. The browser's EventSource reconnects by itself and sends
 * Last-Event-ID, so the server replays what was missed. `onOpen` runs on every (re)connection, which is
 * the moment to refetch current state, and again on `stream.reset` (the server did not replay: the id was older
 * than its retention window, or too far back). `stream.closed` with `reconnect: false` (this user opened more
 * streams than the server keeps, and this was the oldest) closes the EventSource for good: reconnecting would
 * only evict another tab's stream in turn. `onEnded` says so.
 */
export function useEventSource(
  url: string | null,
  onEvent: (type: string, data: unknown) => void,
  onOpen?: () => void,
  onError?: () => void,
  onEnded?: (reason: string) => void,
) {
  const handlers = useRef({ onEvent, onOpen, onError, onEnded });
  useEffect(() => {
    handlers.current = { onEvent, onOpen, onError, onEnded };
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
    const types = [
      "approval.requested",
      "approval.resolved",
      "approval.expired",
      "approval.voted",
      "approval.escalated",
      "run.updated",
      "call.updated",
      "session.updated",
      "account.changed",
      "message",
    ];
    types.forEach((t) => source.addEventListener(t, listener as EventListener));
    source.onopen = () => handlers.current.onOpen?.();
    source.addEventListener("stream.reset", () => handlers.current.onOpen?.());
    source.addEventListener("stream.closed", (e: MessageEvent) => {
      let data: { reason?: unknown; reconnect?: unknown } = {};
      try {
        data = JSON.parse(e.data);
      } catch {
        // no reason given
      }
      if (data.reconnect !== false) return;
      source.close();
      handlers.current.onEnded?.(typeof data.reason === "string" ? data.reason : "closed");
    });
    // A dropped or refused connection (the browser retries a dropped one by itself; a refused one stays closed).
    source.onerror = () => handlers.current.onError?.();
    return () => source.close();
  }, [url]);
}
