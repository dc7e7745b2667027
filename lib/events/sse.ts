import "server-only";
// Server-sent event streams over the event log. A client reconnecting with Last-Event-ID gets every event
// after that id first (from the database), then live ones, in order and without gaps or repeats.
// A stream is only as good as the session that opened it: with a `check`, the session (version, role) is checked
// again before every event and every few seconds, and the stream closes once it fails.
import { latestEventSeq } from "@/lib/db/events";
import { listEventsAfter, type AppEvent } from "./bus";
import { frame, joinGroup, listen, type Member, type StreamCheck } from "./fan-out";
import { replayPlanFor } from "./retention";
import { admitStream, EVICTED } from "./stream-cap";

/** `userId` counts the stream against that user's cap (lib/events/stream-cap.ts). */
export type StreamOptions = { check?: StreamCheck; userId?: string };

const CONNECTED = new TextEncoder().encode(`retry: 2000\n: connected\n\n`);

/** Sent instead of a replay that is not possible or too long: the client re-reads current state (it does on every open too). */
const resetFrame = (reason: string) =>
  new TextEncoder().encode(`event: stream.reset\ndata: ${JSON.stringify({ reason })}\n\n`);

/** Where a stream's bytes go: a Web ReadableStream (Next.js route) or a node:http response (lib/http/lean-streams.ts). */
export type EventSink = { write: (bytes: Uint8Array) => void; close: () => void };

export type EventStreamSpec = StreamOptions & { since: number | null; visible: (event: AppEvent) => boolean };

/**
 * Runs one stream into `sink`: the backlog after `since` (or nothing, for a fresh client), then live events, with the
 * shared heartbeat and the session re-check of its group (lib/events/fan-out.ts). Returns the function that ends it
 * (client gone); the stream ends itself through `sink.close` when the session no longer holds. A throwing `write`
 * means the client is gone.
 */
export function openEventStream(spec: EventStreamSpec, sink: EventSink): () => void {
  const { since, visible, check, userId } = spec;
  let leave: (() => void) | null = null;
  let release: (() => void) | null = null;
  const member: Member = {
    visible,
    cursor: 0,
    live: false,
    buffered: [],
    closed: false,
    write: (bytes) => {
      if (member.closed) return;
      try {
        sink.write(bytes);
      } catch {
        cleanup();
      }
    },
    close: () => {
      if (member.closed) return;
      cleanup();
      try {
        sink.close();
      } catch {
        // already closed
      }
    },
  };
  const cleanup = () => {
    member.closed = true;
    leave?.();
    leave = null;
    release?.();
    release = null;
  };
  const run = async () => {
    // Listen and join before reading the backlog, so nothing falls between the two (live events wait in `buffered`).
    await listen();
    if (member.closed) return; // the client left while we subscribed
    const joined = joinGroup(member, check);
    leave = joined.leave;
    // Counted before any replay is read: past the cap, the user's oldest stream closes now.
    let connected = false;
    if (userId) {
      const admitted = await admitStream(userId, {
        evict: () => {
          // Every stream says it is connected first, also one a newer stream evicts while it is being counted (the
          // lease's insert and trim wait on the database; concurrent openings on PostgreSQL did this).
          if (!connected) member.write(CONNECTED);
          member.write(EVICTED);
          member.close();
        },
      });
      // Closed meanwhile (client gone, or evicted by a newer stream while this one was being counted).
      if (member.closed) return admitted();
      release = admitted;
    }
    // "Now" is read before the client is told it is connected, so a fresh client misses nothing written after it is
    // told (read after, an event committed in between was counted as past and never sent).
    const latest = await latestEventSeq();
    if (member.closed) return;
    connected = true;
    member.write(CONNECTED);
    const backlog: AppEvent[] = [];
    const take = (event: AppEvent) => {
      if (event.seq <= member.cursor) return;
      member.cursor = event.seq;
      if (visible(event)) backlog.push(event);
    };
    // A fresh client starts from now and loads current state itself. So does one whose id is beyond the log's end:
    // that id was not handed out by the log as it stands (the database server lost the log's tail in a crash, since
    // results commit without waiting for the disk, and hands those numbers out again; or the id is made up), and
    // skipping every event up to it would hide the new ones. A client re-reads current state on every connection
    // (components/use-event-source.ts).
    member.cursor = Math.min(since ?? latest, latest);
    // A replay is bounded (lib/events/retention.ts): from before the retention window, from a pruned id or from further
    // back than EVENT_REPLAY_MAX_ROWS, the stream starts from now and tells the client to re-read current state.
    const plan = since !== null && since < latest ? await replayPlanFor(since) : ({ kind: "replay" } as const);
    if (member.closed) return;
    if (plan.kind === "snapshot") {
      member.cursor = latest;
      member.write(resetFrame(plan.reason));
    } else if (since !== null) {
      for (
        let page = await listEventsAfter({ seq: member.cursor });
        page.length > 0;
        page = await listEventsAfter({ seq: member.cursor })
      )
        page.forEach(take);
    }
    // Going live is one synchronous step: what arrived meanwhile joins the backlog, and the group writes it (after one
    // check) before any later event, which it queues behind.
    member.buffered.sort((a, b) => a.seq - b.seq).forEach(take);
    member.buffered = [];
    member.live = true;
    if (backlog.length) void joined.group.enqueue(() => backlog.forEach((event) => member.write(frame(event))));
  };
  run().catch(() => member.close());
  return cleanup;
}

export const EVENT_STREAM_HEADERS = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
} as const;

export function lastEventIdOf(headers: Headers, url: URL): number | null {
  const raw = headers.get("last-event-id") ?? url.searchParams.get("lastEventId");
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

/** The stream as a Web Response, for the Next.js route handlers (used when the lean handler is not serving). */
export async function eventStreamResponse(
  request: Request,
  visible: (event: AppEvent) => boolean,
  options: StreamOptions = {},
): Promise<Response> {
  const since = lastEventIdOf(request.headers, new URL(request.url));
  let stop: (() => void) | null = null;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      stop = openEventStream(
        { since, visible, check: options.check, userId: options.userId },
        { write: (bytes) => controller.enqueue(bytes), close: () => controller.close() },
      );
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
