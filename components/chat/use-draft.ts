"use client";
import { useCallback, useSyncExternalStore } from "react";

const key = (sessionId: string) => `toolgate.draft.${sessionId}`;
// Where storage is disabled or full, drafts live in memory for the page's lifetime.
const memory = new Map<string, string>();
const listeners = new Set<() => void>();

function read(sessionId: string): string {
  try {
    return window.localStorage.getItem(key(sessionId)) ?? memory.get(sessionId) ?? "";
  } catch {
    return memory.get(sessionId) ?? "";
  }
}

function write(sessionId: string, value: string) {
  memory.set(sessionId, value);
  try {
    if (value) window.localStorage.setItem(key(sessionId), value);
    else window.localStorage.removeItem(key(sessionId));
  } catch {
    // storage disabled or full: the memory copy stands
  }
  listeners.forEach((l) => l());
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  // Another tab typing in the same chat updates this one's box too.
  window.addEventListener("storage", listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener("storage", listener);
  };
}

/**
 * The composer's text, kept per chat in this browser's storage as it is typed: a reload, a dropped connection or
 * a server restart loses no typed text, and another chat's draft never shows up here.
 */
export function useDraft(sessionId: string): [string, (next: string) => void] {
  const value = useSyncExternalStore(
    subscribe,
    () => read(sessionId),
    () => "",
  );
  const set = useCallback((next: string) => write(sessionId, next), [sessionId]);
  return [value, set];
}
