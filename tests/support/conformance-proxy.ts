// What stands between the MCP conformance suite and Toolgate's /mcp in tests/integration/mcp-conformance.test.ts,
// and why. The suite (0.1.9) connects with `new StreamableHTTPClientTransport(url)`: it sends no headers, so it
// cannot present a token, and it calls its test server's tools, prompts and resources by their bare names
// (test_simple_text, test://static-text), where the gateway namespaces them by server (mcp__<server>__<name>,
// toolgate://<server>/<uri>: lib/gateway/upstream-names.ts). This forwarding proxy does exactly those two things and
// nothing else: it adds `Authorization: Bearer <token>`, prefixes the names in requests, and strips the prefix from
// string values in responses (JSON or SSE, event by event). Everything else (status codes, headers, the protocol
// itself) is the gateway's own, so the scenarios still measure the gateway.
import http from "node:http";
import type { AddressInfo } from "node:net";

export type RenamingProxy = { url: string; close: () => Promise<void> };

type Message = { method?: string; params?: Record<string, unknown> } & Record<string, unknown>;

export function startRenamingProxy({
  target,
  token,
  serverId,
}: {
  target: string;
  token: string;
  serverId: string;
}): Promise<RenamingProxy> {
  const namePrefix = `mcp__${serverId}__`;
  const uriPrefix = `toolgate://${serverId}/`;
  const name = (value: unknown) =>
    typeof value === "string" && !value.startsWith(namePrefix) ? `${namePrefix}${value}` : value;
  const uri = (value: unknown) =>
    typeof value === "string" && !value.startsWith(uriPrefix) ? `${uriPrefix}${value}` : value;

  function outbound(message: Message): Message {
    const params = message.params ? { ...message.params } : undefined;
    if (!params) return message;
    if (message.method === "tools/call" || message.method === "prompts/get") params.name = name(params.name);
    if (
      message.method === "resources/read" ||
      message.method === "resources/subscribe" ||
      message.method === "resources/unsubscribe"
    )
      params.uri = uri(params.uri);
    if (message.method === "completion/complete" && params.ref && typeof params.ref === "object") {
      const ref = { ...(params.ref as Record<string, unknown>) };
      if (ref.type === "ref/prompt") ref.name = name(ref.name);
      if (ref.type === "ref/resource") ref.uri = uri(ref.uri);
      params.ref = ref;
    }
    return { ...message, params };
  }

  function inbound(value: unknown): unknown {
    if (typeof value === "string") {
      if (value.startsWith(namePrefix)) return value.slice(namePrefix.length);
      if (value.startsWith(uriPrefix)) return value.slice(uriPrefix.length);
      return value;
    }
    if (Array.isArray(value)) return value.map(inbound);
    if (value && typeof value === "object")
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inbound(v)]));
    return value;
  }

  const rewriteEvent = (event: string) =>
    event
      .split("\n")
      .map((line) =>
        line.startsWith("data: ") && line.length > 6
          ? `data: ${JSON.stringify(inbound(JSON.parse(line.slice(6))))}`
          : line,
      )
      .join("\n");

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: string | undefined = raw || undefined;
    if (raw) {
      try {
        const parsed = JSON.parse(raw) as Message | Message[];
        body = JSON.stringify(Array.isArray(parsed) ? parsed.map(outbound) : outbound(parsed));
      } catch {
        // Not JSON: passed on as it is, for the gateway to refuse.
      }
    }
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    for (const h of ["content-type", "accept", "mcp-protocol-version", "mcp-session-id", "last-event-id"]) {
      const v = req.headers[h];
      if (typeof v === "string") headers[h] = v;
    }
    const upstream = await fetch(target, {
      method: req.method,
      headers,
      body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
    });
    const out: Record<string, string> = {};
    upstream.headers.forEach((v, k) => {
      if (!["content-length", "content-encoding", "transfer-encoding", "connection"].includes(k)) out[k] = v;
    });
    res.writeHead(upstream.status, out);
    const type = upstream.headers.get("content-type") ?? "";
    if (!upstream.body) return void res.end();
    if (type.includes("application/json")) {
      const text = await upstream.text();
      try {
        res.end(JSON.stringify(inbound(JSON.parse(text))));
      } catch {
        res.end(text);
      }
      return;
    }
    if (!type.includes("text/event-stream")) return void res.end(Buffer.from(await upstream.arrayBuffer()));
    const decoder = new TextDecoder();
    let pending = "";
    const reader = upstream.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      pending += decoder.decode(read.value, { stream: true });
      let end: number;
      while ((end = pending.indexOf("\n\n")) >= 0) {
        res.write(`${rewriteEvent(pending.slice(0, end))}\n\n`);
        pending = pending.slice(end + 2);
      }
    }
    res.end(pending ? rewriteEvent(pending) : undefined);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}/mcp`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
  });
}
