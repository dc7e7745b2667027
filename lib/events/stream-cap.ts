import "server-only";
// At most EVENT_STREAMS_PER_USER open event streams per user on this instance (issue 29, finding 2): one member
// opening hundreds of streams held as many sockets, replays and fan-out targets, and slowed every other member. A
// new stream past the cap closes that user's oldest one, which gets a last event telling its client not to
// reconnect (components/use-event-source.ts honours it), so two tabs never take turns evicting each other. The
// newest wins because it is the tab the person is looking at.
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";

const encoder = new TextEncoder();
/** The last event of an evicted stream; `retry` keeps a client that ignores it from coming back for an hour. */
export const EVICTED = encoder.encode(`retry: 3600000\nevent: stream.closed\ndata: ${JSON.stringify({ reason: "too_many_streams", reconnect: false })}\n\n`);

export type CappedStream = { evict: () => void };

const globalForCap = globalThis as unknown as { toolgateStreamsByUser?: Map<string, Set<CappedStream>> };
const byUser = (globalForCap.toolgateStreamsByUser ??= new Map<string, Set<CappedStream>>());

/** Counts a new stream of `userId`, evicting that user's oldest streams past the cap; returns the release. */
export function admitStream(userId: string, stream: CappedStream, max = loadConfig().EVENT_STREAMS_PER_USER): () => void {
  let open = byUser.get(userId);
  if (!open) byUser.set(userId, (open = new Set()));
  open.add(stream);
  // A Set iterates in insertion order: the first is the oldest.
  for (const oldest of open) {
    if (open.size <= max) break;
    open.delete(oldest);
    log("info", "event_stream_evicted", { userId, open: open.size, max });
    oldest.evict();
  }
  const held = open;
  return () => {
    held.delete(stream);
    if (held.size === 0 && byUser.get(userId) === held) byUser.delete(userId);
  };
}

/** Open streams of a user on this instance (tests, diagnostics). */
export function openStreamCount(userId: string): number {
  return byUser.get(userId)?.size ?? 0;
}
