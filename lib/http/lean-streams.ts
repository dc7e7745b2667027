import "server-only";
// The event streams served straight from node:http, beside Next.js in the same process (scripts/server.mjs hands
// these paths here and everything else to Next). Through Next.js's route plumbing an open stream held ~160 KiB of
// server memory (request and response wrappers, a Web ReadableStream with its queue, async-context state); here it
// holds the socket, Node's request/response and one small closure. The rules are the route handlers' own: the same
// session claim (lib/auth/cookie-claim.ts reads the cookie `auth()` reads), the same access checks
// (lib/http/event-streams.ts), the same error bodies (lib/http/respond.ts), the same headers (next.config.ts's,
// lib/http/security-headers.ts) and the same backlog / Last-Event-ID behaviour (lib/events/sse.ts). Only GET comes
// here: the CSRF guard passes every safe method, and any other method goes to Next.js (405 there).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { TLSSocket } from "node:tls";
import { claimFromCookie } from "@/lib/auth/cookie-claim";
import { EVENT_STREAM_HEADERS, lastEventIdOf, openEventStream } from "@/lib/events/sse";
import { authorizeEventStream, type StreamTarget } from "./event-streams";
import { errorResponse } from "./respond";
import { COMMON_HEADERS, LOCKED_CSP } from "./security-headers";

/** A client that reads slower than events arrive is cut off past this much unsent data; it reconnects with Last-Event-ID. */
const MAX_UNSENT_BYTES = 1024 * 1024;

const SECURITY_HEADERS: Record<string, string> = Object.fromEntries(
  [...COMMON_HEADERS, LOCKED_CSP].map((h) => [h.key.toLowerCase(), h.value]),
);
const SESSION_EVENTS = /^\/api\/sessions\/([^/%]+)\/events$/;

/**
 * The stream a request asks for, or null for anything this handler does not serve exactly as Next.js would (other
 * methods, percent escapes, which proxy.ts vets, trailing slashes, which Next.js redirects): those go to Next.js.
 */
export function leanStreamTarget(method: string | undefined, rawUrl: string | undefined): StreamTarget | null {
  if (method !== "GET" || !rawUrl) return null;
  const q = rawUrl.indexOf("?");
  const pathname = q < 0 ? rawUrl : rawUrl.slice(0, q);
  if (pathname === "/api/approvals/stream") return { kind: "approvals" };
  if (pathname === "/api/me/events") {
    const session = new URLSearchParams(q < 0 ? "" : rawUrl.slice(q + 1)).get("session");
    return { kind: "tab", ...(session === null ? {} : { sessionId: session }) };
  }
  const match = SESSION_EVENTS.exec(pathname);
  return match ? { kind: "session", sessionId: match[1]! } : null;
}

function headersOf(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

async function sendError(res: ServerResponse, error: unknown): Promise<void> {
  const response = errorResponse(error);
  const headers: Record<string, string> = { ...SECURITY_HEADERS };
  response.headers.forEach((value, name) => (headers[name] = value));
  const body = await response.text();
  res.writeHead(response.status, { ...headers, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

export async function serveLeanStream(req: IncomingMessage, res: ServerResponse, target: StreamTarget): Promise<void> {
  const headers = headersOf(req);
  let access: Awaited<ReturnType<typeof authorizeEventStream>>;
  try {
    const claim = await claimFromCookie(headers, Boolean((req.socket as TLSSocket).encrypted));
    access = await authorizeEventStream(claim, target);
  } catch (error) {
    return sendError(res, error);
  }
  if (res.destroyed || req.socket.destroyed) return; // the client left during the checks
  const since = lastEventIdOf(headers, new URL(req.url ?? "/", "http://localhost"));
  res.writeHead(200, { ...SECURITY_HEADERS, ...EVENT_STREAM_HEADERS });
  res.flushHeaders();
  req.socket.setNoDelay(true);
  const stop = openEventStream(
    { since, visible: access.visible, check: access.check, userId: access.userId },
    {
      write: (bytes) => {
        if (res.writableLength > MAX_UNSENT_BYTES) {
          res.destroy();
          throw new Error("client too slow");
        }
        res.write(bytes);
      },
      close: () => res.end(),
    },
  );
  res.on("close", stop);
}

export const leanStreams = { target: leanStreamTarget, serve: serveLeanStream };
export type LeanStreams = typeof leanStreams;
