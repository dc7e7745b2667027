import "server-only";
// Server-sent event streams over the event log. A client reconnecting with Last-Event-ID gets every event
// after that id first (from the database), then live ones, in order and without gaps or repeats.
import { latestEventSeq } from "@/lib/db/events";
import { listEventsAfter, subscribeEvents, type AppEvent } from "./bus";

const HEARTBEAT_MS = 15_000;

function lastEventId(request: Request): number | null {
  const raw = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("lastEventId");
  if (raw === null || raw === "") return null;
  const n = Number(raw);
  return Number.isInteger(n) && n >= 0 ? n : null;
}

function frame(event: AppEvent): string {
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify({ seq: event.seq, type: event.type, sessionId: event.sessionId, payload: event.payload, at: event.createdAt })}\n\n`;
}

export async function eventStreamResponse(request: Request, visible: (event: AppEvent) => boolean): Promise<Response> {
  const encoder = new TextEncoder();
  const since = lastEventId(request);
  let unsubscribe: (() => void) | null = null;
  let heartbeat: NodeJS.Timeout | null = null;
  const cleanup = () => {
    unsubscribe?.();
    unsubscribe = null;
    if (heartbeat) clearInterval(heartbeat);
  };
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let cursor = 0;
      let replaying = true;
      const buffered: AppEvent[] = [];
      const send = (event: AppEvent) => {
        if (event.seq <= cursor) return;
        cursor = event.seq;
        if (!visible(event)) return;
        try {
          controller.enqueue(encoder.encode(frame(event)));
        } catch {
          cleanup();
        }
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
      request.signal.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(stream, {
    headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache, no-transform", connection: "keep-alive", "x-accel-buffering": "no" },
  });
}
