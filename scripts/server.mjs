#!/usr/bin/env node
// The app's server (`npm start`, `npm run serve`, the test apps): Next.js's request handler for everything except
// the event streams, which a lean node:http handler in this same process serves (lib/http/lean-streams.ts, handed
// over by instrumentation.ts once Next.js has loaded the app). An open stream costs a fraction of what it costs
// through Next.js's route plumbing (BENCHMARKS.md, "SSE streams at scale"). TOOLGATE_LEAN_STREAMS=off sends the
// streams to the Next.js routes too (same checks; for comparison). Flags as `next start`: -p/--port, -H/--hostname.
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
import v8 from "node:v8";
import vm from "node:vm";
import next from "next";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const flag = (short, long) => {
  const i = args.findIndex((a) => a === short || a === long);
  return i >= 0 ? args[i + 1] : undefined;
};
const port = Number(flag("-p", "--port") ?? process.env.PORT ?? 3000);
const hostname = flag("-H", "--hostname") ?? process.env.HOSTNAME ?? undefined;

process.env.NODE_ENV ||= "production";
const app = next({ dev: false, dir: root, hostname: hostname ?? "localhost", port });
await app.prepare();
const handle = app.getRequestHandler();
// prepare() can resolve before Next.js has run instrumentation.ts's register(): wait for the handler it hands over,
// so no stream is served by the Next.js route by accident (and a failed start-up does not listen at all).
async function registeredLeanStreams() {
  if (process.env.TOOLGATE_LEAN_STREAMS === "off") return undefined;
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 50))) {
    if (globalThis.toolgateLeanStreams) return globalThis.toolgateLeanStreams;
  }
  throw new Error("the lean stream handler was not registered (instrumentation.ts did not finish)");
}
const lean = await registeredLeanStreams();

// The client's address as the app sees it (X-Forwarded-For, read by the sign-in throttle): without a trusted proxy
// (TRUST_PROXY_HOPS=0, the default) the socket's address, whatever a client claims, so rotating a forged header
// cannot escape the per-address limit; behind N trusted proxies, the address the outermost of them saw.
const trustedHops = Number(process.env.TRUST_PROXY_HOPS ?? 0);
function normaliseClientAddress(req) {
  const chain = String(req.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  chain.push(req.socket.remoteAddress ?? "unknown");
  req.headers["x-forwarded-for"] = chain[Math.max(0, chain.length - 1 - trustedHops)];
  delete req.headers["x-real-ip"];
}

// Every request gets an id: the X-Request-Id response header, and every log line written while serving it
// (lib/log.ts reads it from this AsyncLocalStorage, kept on globalThis so every bundle of the app finds it).
// A trusted proxy's id (nginx's $request_id) is kept, so its access log and ours name the same request; a
// client's own header is not trusted without one.
const requestContext = (globalThis.toolgateRequestContext ??= new AsyncLocalStorage());
// The client address in X-Forwarded-For is decided here (normaliseClientAddress): /metrics trusts it for its
// loopback rule only under this server (`next start` leaves the header as the client sent it).
globalThis.toolgateClientAddressDecided = true;
const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/;
function requestIdOf(req) {
  const given = req.headers["x-request-id"];
  const id =
    trustedHops > 0 && typeof given === "string" && REQUEST_ID.test(given)
      ? given
      : randomUUID().replace(/-/g, "").slice(0, 16);
  req.headers["x-request-id"] = id;
  return id;
}
const debugLog = ["debug"].includes(String(process.env.LOG_LEVEL ?? "").toLowerCase());

// V8 grows its heap under a burst of requests and gives the pages back to the system only at its next full
// collection, which an idle server may not run for a long time: after 4,000 session creations the RSS stayed near
// its peak although nothing of ours still held the memory (bench/memory-burst.ts, BENCHMARKS.md). So once no request
// has arrived for IDLE_MS and the heap's used bytes have grown IDLE_SLACK_BYTES past what the last such collection
// left, one full collection runs (a pause nobody waits on). Growth of used bytes, not unused space: until a
// collection runs, a burst's garbage counts as used, so a test of unused space skipped exactly the heaps that needed
// it (the bench showed no drop). TOOLGATE_IDLE_GC=off disables it.
const IDLE_MS = 10_000;
const IDLE_SLACK_BYTES = 16 * 1024 * 1024;
let lastRequestAt = Date.now();
let collectedSinceRequest = false;
let settledUsedBytes = 0;
function idleCollector() {
  if (process.env.TOOLGATE_IDLE_GC === "off") return;
  v8.setFlagsFromString("--expose-gc");
  const gc = globalThis.gc ?? vm.runInNewContext("gc");
  const timer = setInterval(() => {
    if (collectedSinceRequest || Date.now() - lastRequestAt < IDLE_MS) return;
    if (v8.getHeapStatistics().used_heap_size - settledUsedBytes < IDLE_SLACK_BYTES) return;
    collectedSinceRequest = true;
    gc();
    settledUsedBytes = v8.getHeapStatistics().used_heap_size;
  }, IDLE_MS / 4);
  timer.unref();
}
idleCollector();

const server = http.createServer((req, res) => {
  lastRequestAt = Date.now();
  collectedSinceRequest = false;
  normaliseClientAddress(req);
  const requestId = requestIdOf(req);
  res.setHeader("x-request-id", requestId);
  if (debugLog) {
    const started = performance.now();
    res.once("finish", () =>
      console.log(
        JSON.stringify({
          at: new Date().toISOString(),
          level: "debug",
          event: "http_request",
          requestId,
          method: req.method,
          path: String(req.url ?? "").split("?")[0],
          status: res.statusCode,
          ms: Math.round((performance.now() - started) * 10) / 10,
        }),
      ),
    );
  }
  requestContext.run({ requestId }, () => serve(req, res));
});

function serve(req, res) {
  const target = lean?.target(req.method, req.url);
  if (!target) return void handle(req, res);
  lean.serve(req, res, target).catch((error) => {
    console.error(JSON.stringify({ level: "error", event: "lean_stream_failed", error: String(error) }));
    if (!res.headersSent)
      res
        .writeHead(500, { "content-type": "application/json" })
        .end('{"error":{"code":"INTERNAL","message":"stream failed"}}');
    else res.destroy();
  });
}
// Behind a load balancer the proxy keeps idle connections to us open for reuse (nginx 60 s, most cloud balancers
// 60 s). If we closed an idle one first (Node's default is 5 s), a request the proxy sends just then is lost and the
// client gets a 502 (the likely cause of 2 × 502 in 1,000 turns of the cluster benchmark). So the proxy closes first.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
// `npm start` hands over the address and the demo logins, so they are the last lines before "Ready".
const banner = (process.env.TOOLGATE_START_BANNER ?? "").split("\n").filter(Boolean);
server.listen(port, hostname, () =>
  console.log(
    [...banner, `▶ Ready on http://${hostname ?? "localhost"}:${port}${lean ? " (lean event streams)" : ""}`].join(
      "\n",
    ),
  ),
);

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, async () => {
    server.close();
    server.closeAllConnections();
    // Spans still batched (lib/ops/tracing.ts) go out first, for at most two seconds.
    await Promise.race([
      globalThis.toolgateFlushTraces?.().catch(() => undefined),
      new Promise((r) => setTimeout(r, 2_000)),
    ]);
    process.exit(0);
  });
}
