import "server-only";
// Server-sent event streams over the event log. A client reconnecting with Last-Event-ID gets every event
// after that id first (from the database), then live ones, in order and without gaps or repeats.
// A stream is only as good as the session that opened it: with `stillAllowed`, the session (version, role)
// is checked again before every event and every few seconds, and the stream closes once it fails.
import { latestEventSeq } from "@/lib/db/events";
import { log } from "@/lib/log";
import { listEventsAfter, subscribeEvents, type AppEvent } from "./bus";

const HEARTBEAT_MS = 15_000;
const RECHECK_MS = 5_000;

export type StreamOptions = { stillAllowed?: () => Promise<boolean> };

const encoder = new TextEncoder();
const PING = encoder.encode(`: ping\n\n`);
const CONNECTED = encoder.encode(`retry: 2000\n: connected\n\n`);

// The bus hands the same event object to every subscriber: it is serialised and encoded once, not once per stream.
const frames = new WeakMap<AppEvent, Uint8Array>();
function frame(event: AppEvent): Uint8Array {
  let bytes = frames.get(event);
  if (!bytes) {
    bytes = encoder.encode(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ seq: event.seq, type: event.type, sessionId: event.sessionId, payload: event.payload, at: event.createdAt })}\n\n`);
    frames.set(event, bytes);
  }
  return bytes;
}

/**
 * How long one event takes to reach every stream of this process that shows it: from its first delivery to its last
 * write handed to a socket. The bus calls every subscriber synchronously, so all of an event's deliveries are queued
 * before the first finishes. Logged for large or slow fan-outs (an operator's signal; the SSE benchmark reads it).
 */
const FANOUT_LOG_STREAMS = 1_000;
const FANOUT_SLOW_MS = 100;
const fanouts = new WeakMap<AppEvent, { start: number; pending: number; streams: number }>();
function fanOutBegin(event: AppEvent): void {
  const f = fanouts.get(event);
  if (f) {
    f.pending += 1;
    f.streams += 1;
  } else fanouts.set(event, { start: performance.now(), pending: 1, streams: 1 });
}
function fanOutEnd(event: AppEvent): void {
  const f = fanouts.get(event);
  if (!f || --f.pending > 0) return;
  const ms = performance.now() - f.start;
  if (f.streams >= FANOUT_LOG_STREAMS || ms > FANOUT_SLOW_MS) log(ms > FANOUT_SLOW_MS ? "warn" : "info", "event_fanout", { seq: event.seq, type: event.type, streams: f.streams, ms: Math.round(ms * 10) / 10 });
  fanouts.delete(event);
}

/** One timer for all open streams instead of one per connection (each costs memory and a wake-up). */
class SharedTicker {
  private readonly members = new Set<() => void>();
  private timer: NodeJS.Timeout | null = null;
  constructor(private readonly ms: number) {}

  add(tick: () => void): () => void {
    this.members.add(tick);
    if (!this.timer) {
      this.timer = setInterval(() => this.members.forEach((m) => m()), this.ms);
      this.timer.unref();
    }
    return () => {
      this.members.delete(tick);
      if (this.members.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }
}

const heartbeats = new SharedTicker(HEARTBEAT_MS);
const rechecks = new SharedTicker(RECHECK_MS);

/** Where a stream's bytes go: a Web ReadableStream (Next.js route) or a node:http response (lib/http/lean-streams.ts). */
export type EventSink = { write: (bytes: Uint8Array) => void; close: () => void };

export type EventStreamSpec = StreamOptions & { since: number | null; visible: (event: AppEvent) => boolean };

/**
 * Runs one stream into `sink`: the backlog after `since` (or nothing, for a fresh client), then live events, with the
 * shared heartbeat and the session re-check. Returns the function that ends it (client gone); the stream ends itself
 * through `sink.close` when the session no longer holds. A throwing `write` means the client is gone.
 */
export function openEventStream(spec: EventStreamSpec, sink: EventSink): () => void {
  const { since, visible, stillAllowed } = spec;
  let unsubscribe: (() => void) | null = null;
  let stopHeartbeat: (() => void) | null = null;
  let stopRecheck: (() => void) | null = null;
  let closed = false;
  const cleanup = () => {
    closed = true;
    unsubscribe?.();
    unsubscribe = null;
    stopHeartbeat?.();
    stopRecheck?.();
  };
  const close = () => {
    if (closed) return;
    cleanup();
    try {
      sink.close();
    } catch {
      // already closed
    }
  };
  const write = (bytes: Uint8Array) => {
    try {
      sink.write(bytes);
    } catch {
      cleanup();
    }
  };
  let cursor = 0;
  let replaying = true;
  const buffered: AppEvent[] = [];
  // Deliveries go through one chain, so the session check before each event keeps the order.
  let chain: Promise<void> = Promise.resolve();
  const allowed = async () => !stillAllowed || (await stillAllowed());
  const deliver = (event: AppEvent, live: boolean) => {
    if (live) fanOutBegin(event);
    chain = chain
      .then(async () => {
        if (closed) return;
        if (!(await allowed())) return close();
        write(frame(event));
      })
      // A check that cannot be made (the database is down) closes the stream: fail closed; the client reconnects.
      .catch(() => close())
      .finally(() => live && fanOutEnd(event));
  };
  // `live`: handed over by the bus (the same object reaches every stream), not read back from the log for this one.
  const send = (event: AppEvent, live = false) => {
    if (event.seq <= cursor) return;
    cursor = event.seq;
    if (!visible(event)) return;
    deliver(event, live);
  };
  const run = async () => {
    // Subscribe before reading the backlog, so nothing falls between the two.
    unsubscribe = await subscribeEvents((event) => (replaying ? buffered.push(event) : send(event, true)));
    if (closed) return cleanup(); // the client left while we subscribed
    write(CONNECTED);
    if (since === null) {
      cursor = await latestEventSeq(); // a fresh client starts from now and loads current state itself
    } else {
      cursor = since;
      for (let page = await listEventsAfter({ seq: cursor }); page.length > 0; page = await listEventsAfter({ seq: cursor })) page.forEach((e) => send(e));
    }
    replaying = false;
    buffered.sort((a, b) => a.seq - b.seq).forEach((e) => send(e));
    if (closed) return;
    stopHeartbeat = heartbeats.add(() => write(PING));
    if (stillAllowed) {
      stopRecheck = rechecks.add(() => {
        chain = chain
          .then(async () => {
            if (!closed && !(await allowed())) close();
          })
          .catch(() => close());
      });
    }
  };
  run().catch(() => close());
  return cleanup;
}

export const EVENT_STREAM_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" } as const;

export function lastEventIdOf(headers: Headers, url: URL): number | null {
  const raw = headers.get("last-event-id") ?? url.searchParams.get("lastEventId");
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/** The stream as a Web Response, for the Next.js route handlers (used when the lean handler is not serving). */
export async function eventStreamResponse(request: Request, visible: (event: AppEvent) => boolean, options: StreamOptions = {}): Promise<Response> {
  const since = lastEventIdOf(request.headers, new URL(request.url));
  let stop: (() => void) | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = openEventStream({ since, visible, stillAllowed: options.stillAllowed }, { write: (bytes) => controller.enqueue(bytes), close: () => controller.close() });
      if (request.signal.aborted) return stop();
      request.signal.addEventListener("abort", () => {
        stop?.();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      stop?.();
    },
  });
  return new Response(stream, { headers: EVENT_STREAM_HEADERS });
}
