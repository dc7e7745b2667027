import "server-only";
// Server-sent event streams over the event log. A client reconnecting with Last-Event-ID gets every event
// after that id first (from the database), then live ones, in order and without gaps or repeats.
// A stream is only as good as the session that opened it: with `stillAllowed`, the session (version, role)
// is checked again before every event and every few seconds, and the stream closes once it fails.
import { latestEventSeq } from "@/lib/db/events";
import { listEventsAfter, subscribeEvents, type AppEvent } from "./bus";

const HEARTBEAT_MS = 15_000;
const RECHECK_MS = 5_000;

export type StreamOptions = { stillAllowed?: () => Promise<boolean> };

function lastEventId(request: Request): number | null {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function frame(event: AppEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ seq: event.seq, type: event.type, sessionId: event.sessionId, payload: event.payload, at: event.createdAt })}\n\n`;
}

export async function eventStreamResponse(request: Request, visible: (event: AppEvent) => boolean, options: StreamOptions = {}): Promise<Response> {
  const encoder = new TextEncoder();
  const since = lastEventId(request);
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  let recheck: NodeJS.Timeout | null = null;
  let closed = false;
  const cleanup = () => {
    closed = true;
    unsubscribe?.();
    unsubscribe = null;
    if (heartbeat) clearInterval(heartbeat);
    if (recheck) clearInterval(recheck);
  };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let cursor = 0;
      let replaying = true;
      const buffered: AppEvent[] = [];
      const close = () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      };
      // Deliveries go through one chain, so the session check before each event keeps the order.
      let chain: Promise<void> = Promise.resolve();
      const allowed = async () => !options.stillAllowed || (await options.stillAllowed());
      const deliver = (event: AppEvent) => {
        chain = chain.then(async () => {
          if (closed) return;
          if (!(await allowed())) return close();
          try {
            controller.enqueue(encoder.encode(frame(event)));
          } catch {
            cleanup();
          }
        });
      };
      const send = (event: AppEvent) => {
        if (event.seq <= cursor) return;
        cursor = event.seq;
        if (!visible(event)) return;
        deliver(event);
      };
      // Subscribe before reading the backlog, so nothing falls between the two.
      unsubscribe = await subscribeEvents((event) => (replaying ? buffered.push(event) : send(event)));
      controller.enqueue(encoder.encode(`retry: 2000\n: connected\n\n`));
      if (since === null) {
        cursor = await latestEventSeq(); // a fresh client starts from now and loads current state itself
      } else {
        cursor = since;
        for (let page = await listEventsAfter({ seq: cursor }); page.length > 0; page = await listEventsAfter({ seq: cursor })) page.forEach(send);
      }
      replaying = false;
      buffered.sort((a, b) => a.seq - b.seq).forEach(send);
      heartbeat = setInterval(() => {
        try {
          controller.enqueue(encoder.encode(`: ping\n\n`));
        } catch {
          cleanup();
        }
      }, HEARTBEAT_MS);
      if (options.stillAllowed) {
        recheck = setInterval(() => {
          chain = chain.then(async () => {
            if (!closed && !(await allowed())) close();
          });
        }, RECHECK_MS);
      }
      request.signal.addEventListener("abort", close);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" },
  });
}
