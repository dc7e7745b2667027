// A real HTTP server on 127.0.0.1 that records every request (method, path, headers, raw body) and answers with
// what the test's responder says: the receiving end of webhooks, chat incoming-webhooks and response_urls.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type Received = { method: string; path: string; headers: http.IncomingHttpHeaders; body: string; at: number };
export type Responder = (r: Received, index: number) => number | Promise<number>;

export async function startReceiver(responder: Responder = () => 200) {
  const received: Received[] = [];
  let respond = responder;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const r = {
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        at: Date.now(),
      };
      received.push(r);
      const status = await respond(r, received.length - 1);
      res.writeHead(status, { "content-type": "text/plain" }).end(status < 300 ? "ok" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    setResponder(next: Responder) {
      respond = next;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Polls until check() is truthy (generous deadline: shared, slow machines). */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 20_000, stepMs = 50 } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error("condition not met before the deadline");
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
