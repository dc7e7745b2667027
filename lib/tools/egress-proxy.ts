// The per-command egress proxy (issue 28, network by domain). One proxy per command, on a Unix socket in a
// directory only that command's uid can enter; bubblewrap binds the socket into that command's sandbox alone and a
// socat inside bridges 127.0.0.1:3128 to it (sandbox.ts). The sandbox keeps its empty network namespace, so this
// socket is the only way out, and whoever speaks on it is that command: the proxy's decisions use that member's
// grants, never anyone else's. Built on Node's own http server (CONNECT and absolute-form requests); no proxy
// library was needed for two verbs, and none of them checks the resolved address the way this must.
import { BlockList, connect as tcpConnect, isIP, type Socket } from "node:net";
import { lookup } from "node:dns/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { chmod, chown, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { Duplex, Readable, Writable } from "node:stream";
import type { EgressHostTarget } from "@/lib/config";
import { egressDirPrefix } from "./sandbox-reaper";
import { normalizeHost, type AskedDomain, type EgressRequest, type EgressVerdict } from "@/lib/policy/egress";

export type EgressEvent = {
  host: string;
  port: number;
  method: string;
  action: EgressVerdict["action"];
  reason?: string;
};

export type EgressProxyOptions = {
  decide: (request: EgressRequest) => EgressVerdict;
  /** EGRESS_HOSTS: names mapped to fixed addresses (how tests reach local servers); those may be private. */
  hosts: ReadonlyMap<string, EgressHostTarget>;
  /** Bytes this command may send out over all its connections together. */
  uploadBytes: number;
  /** The command's uid outside the sandbox: owns the socket's directory (mode 0700) when the server is root. */
  uid?: number;
};

export type EgressProxy = {
  socketPath: string;
  events: EgressEvent[];
  /** Unlisted domains the command tried, each once, in order. */
  asked: Map<string, AskedDomain>;
  uploaded(): number;
  close(): Promise<void>;
};

const MAX_EVENTS = 200;
const MAX_CONNECTIONS = 64;
const CONNECT_TIMEOUT_MS = 15_000;

// Addresses a name may never resolve to unless EGRESS_HOSTS maps it: the host itself, its networks, metadata services.
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  PRIVATE.addSubnet(net, bits, "ipv4");
}
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return PRIVATE.check(mapped[1], "ipv4");
  const family = isIP(address);
  if (family === 0) return true;
  return PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The one address this connection goes to, checked once (a second lookup could answer differently). */
async function resolveTarget(
  host: string,
  hosts: ReadonlyMap<string, EgressHostTarget>,
): Promise<{ address: string; port?: number } | { refused: string }> {
  const fixed = hosts.get(host);
  if (fixed) return fixed;
  let answers: Array<{ address: string }>;
  try {
    answers = await lookup(host, { all: true, verbatim: true });
  } catch {
    return { refused: `${host} does not resolve` };
  }
  // Every answer must be public: a name with one private answer is someone pointing a listed domain inward.
  if (answers.length === 0 || answers.some((a) => isPrivateAddress(a.address)))
    return { refused: `${host} resolves to a private address` };
  return { address: answers[0]!.address };
}

function refuseSocket(socket: Duplex, status: string, reason: string) {
  const body = `toolgate egress: ${reason}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startEgressProxy(options: EgressProxyOptions): Promise<EgressProxy> {
  // Named for this server, so one it leaves behind (killed) is removed at the next start (sandbox-reaper.ts).
  const dir = await mkdtemp(path.join(os.tmpdir(), egressDirPrefix()));
  const socketPath = path.join(dir, "proxy.sock");
  const events: EgressEvent[] = [];
  const asked = new Map<string, AskedDomain>();
  const open = new Set<Duplex>();
  let sent = 0;

  const note = (event: EgressEvent) => {
    if (events.length < MAX_EVENTS) events.push(event);
  };
  /** Counts bytes leaving through `to`; past the command's cap both ends close. */
  const outbound = (from: Readable, to: Writable) => {
    from.on("data", (chunk: Buffer) => {
      sent += chunk.length;
      if (sent > options.uploadBytes) {
        note({
          host: "-",
          port: 0,
          method: "-",
          action: "deny",
          reason: `upload cap reached (${options.uploadBytes} bytes per command)`,
        });
        from.destroy();
        to.destroy();
        return;
      }
      if (!to.write(chunk)) {
        from.pause();
        to.once("drain", () => from.resume());
      }
    });
    from.on("end", () => to.end());
  };
  const track = (socket: Duplex) => {
    open.add(socket);
    socket.on("close", () => open.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const decided = (request: EgressRequest): EgressVerdict => {
    const verdict = options.decide(request);
    note({ ...request, action: verdict.action, ...(verdict.action === "allow" ? {} : { reason: verdict.reason }) });
    if (verdict.action === "ask" && !asked.has(verdict.pattern))
      asked.set(verdict.pattern, { ...request, host: verdict.domain, pattern: verdict.pattern });
    return verdict;
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    track(req.socket);
    let url: URL;
    try {
      url = new URL(req.url ?? "");
    } catch {
      res
        .writeHead(400, { "content-type": "text/plain" })
        .end("toolgate egress: a proxy request needs an absolute http:// URL\n");
      return;
    }
    if (url.protocol !== "http:") {
      res
        .writeHead(400, { "content-type": "text/plain" })
        .end("toolgate egress: plain requests must be http://; use CONNECT for https\n");
      return;
    }
    const port = url.port ? Number(url.port) : 80;
    const verdict = decided({ host: url.hostname, port, method: req.method ?? "GET" });
    if (verdict.action !== "allow") {
      res
        .writeHead(403, {
          "content-type": "text/plain",
          "x-toolgate-egress": verdict.action === "ask" ? "approval-requested" : "refused",
        })
        .end(`toolgate egress: ${verdict.reason}\n`);
      return;
    }
    void resolveTarget(normalizeHost(url.hostname)!, options.hosts).then((target) => {
      if ("refused" in target) {
        note({ host: url.hostname, port, method: req.method ?? "GET", action: "deny", reason: target.refused });
        res.writeHead(403, { "content-type": "text/plain" }).end(`toolgate egress: ${target.refused}\n`);
        return;
      }
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !k.startsWith("proxy-")));
      const upstream = httpRequest({
        host: target.address,
        port: target.port ?? port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: { ...headers, host: url.host },
        setHost: false,
        timeout: CONNECT_TIMEOUT_MS,
      });
      upstream.on("response", (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on("error", () =>
        res.headersSent
          ? res.destroy()
          : res.writeHead(502, { "content-type": "text/plain" }).end("toolgate egress: upstream failed\n"),
      );
      upstream.on("timeout", () => upstream.destroy());
      outbound(req, upstream);
    });
  });
  server.maxConnections = MAX_CONNECTIONS;

  server.on("connect", (req: IncomingMessage, client: Duplex, head: Buffer) => {
    track(client);
    const match = /^([^:\s]+):(\d{1,5})$/.exec(req.url ?? "");
    const port = match ? Number(match[2]) : 0;
    if (!match || port < 1 || port > 65_535) return refuseSocket(client, "400 Bad Request", "CONNECT needs host:port");
    const verdict = decided({ host: match[1]!, port, method: "CONNECT" });
    if (verdict.action !== "allow") return refuseSocket(client, "403 Forbidden", verdict.reason);
    void resolveTarget(normalizeHost(match[1]!)!, options.hosts).then((target) => {
      if ("refused" in target) {
        note({ host: match[1]!, port, method: "CONNECT", action: "deny", reason: target.refused });
        return refuseSocket(client, "403 Forbidden", target.refused);
      }
      const upstream: Socket = tcpConnect({
        host: target.address,
        port: target.port ?? port,
        timeout: CONNECT_TIMEOUT_MS,
      });
      track(upstream);
      upstream.once("connect", () => {
        upstream.setTimeout(0);
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        if (head.length > 0) {
          sent += head.length;
          upstream.write(head);
        }
        outbound(client, upstream);
        upstream.pipe(client);
      });
      upstream.once("timeout", () => upstream.destroy());
      upstream.once("error", () =>
        client.writable ? refuseSocket(client, "502 Bad Gateway", `${match[1]} did not answer`) : client.destroy(),
      );
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  await chmod(socketPath, 0o600);
  if (options.uid !== undefined && process.getuid?.() === 0) {
    await chown(socketPath, options.uid, options.uid);
    await chown(dir, options.uid, options.uid);
  }

  return {
    socketPath,
    events,
    asked,
    uploaded: () => sent,
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(dir, { recursive: true, force: true });
    },
  };
}
