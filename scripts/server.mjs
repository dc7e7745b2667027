#!/usr/bin/env node
// The app's server (`npm start`, `npm run serve`, the test apps): Next.js's request handler for everything except
// the event streams, which a lean node:http handler in this same process serves (lib/http/lean-streams.ts, handed
// over by instrumentation.ts once Next.js has loaded the app). An open stream costs a fraction of what it costs
// through Next.js's route plumbing (BENCHMARKS.md, "SSE streams at scale"). TOOLGATE_LEAN_STREAMS=off sends the
// streams to the Next.js routes too (same checks; for comparison). Flags as `next start`: -p/--port, -H/--hostname.
import http from "node:http";
import path from "node:path";
import { fileURLToPath } from "node:url";
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

const server = http.createServer((req, res) => {
  normaliseClientAddress(req);
  const target = lean?.target(req.method, req.url);
  if (!target) return void handle(req, res);
  lean.serve(req, res, target).catch((error) => {
    console.error(JSON.stringify({ level: "error", event: "lean_stream_failed", error: String(error) }));
    if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" }).end('{"error":{"code":"INTERNAL","message":"stream failed"}}');
    else res.destroy();
  });
});
// Behind a load balancer the proxy keeps idle connections to us open for reuse (nginx 60 s, most cloud balancers
// 60 s). If we closed an idle one first (Node's default is 5 s), a request the proxy sends just then is lost and the
// client gets a 502 (the likely cause of 2 × 502 in 1,000 turns of the cluster benchmark). So the proxy closes first.
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(port, hostname, () => console.log(`▶ Ready on http://${hostname ?? "localhost"}:${port}${lean ? " (lean event streams)" : ""}`));

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.once(signal, () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}
