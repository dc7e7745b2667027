// Issue 36, the attack suite: hostile MCP servers (tests/fixtures/hostile-mcp-server.mjs) over stdio, in the
// sandbox, and over HTTP on loopback, against the real connection, supervisor and registry on a real database.
// Bounded discovery and size caps, log flooding, orphans and the sandbox's walls. Pinning is in mcp-pins.test.ts.
import fs from "node:fs";
import { createServer } from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parsePolicyDocument,
  ToolRegistry,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolDefinition,
} from "@/lib/policy";
import { addLogSink, type LogRecord } from "@/lib/log";
import { closeMcpConnections, listMcpServerStatus, McpConnection, syncMcpTools } from "@/lib/tools/mcp";
import { MAX_DESCRIPTION_BYTES, MAX_LIST_PAGES, MAX_TOOLS_PER_SERVER } from "@/lib/tools/mcp/limits";
import { LOG_LINES_PER_INTERVAL } from "@/lib/tools/mcp/log-limiter";
import { TEST_AUTH_SECRET, ROOT } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { HOSTILE_FIXTURE, hostileStdioTransport, startHttpFixture, type HttpFixture } from "../support/mcp-fixture";
import { everythingStdio } from "../support/reference-servers";
import { removeWorkspaceRoot } from "../support/workspaces";

function parseDoc(input: PolicyDocumentInput): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}
const docWith = (servers: Array<Record<string, unknown>>) =>
  parseDoc({
    system: { mcp: { enabled: true, allowedServers: servers.map((s) => String(s.id)) } },
    mcpServers: servers as never,
  });
const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

let dataDir: string;
let workspaceRoot: string;
beforeAll(() => {
  process.env.AUTH_SECRET ??= TEST_AUTH_SECRET;
  // Pins live in the database: a fresh SQLite file, inside a data directory the servers must not see.
  const url = newSqliteUrl();
  prepareDatabase(url);
  process.env.DATABASE_URL = url;
  dataDir = path.join(ROOT, "data");
  workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-hostile-ws-"));
  process.env.WORKSPACE_ROOT = workspaceRoot;
});
afterAll(async () => {
  await closeMcpConnections();
  removeWorkspaceRoot(workspaceRoot);
});

describe("bounded discovery (issue 36, findings 1 and 8)", () => {
  let http: HttpFixture | undefined;
  afterAll(async () => http?.stop());

  it.each(["stdio", "http"] as const)(
    "endless tools/list pagination over %s stops after the page cap, keeping only the tool cap, and the admin view says so",
    async (kind) => {
      let transport: Record<string, unknown> = hostileStdioTransport("endless");
      if (kind === "http") {
        http = await startHttpFixture({ HOSTILE_MODE: "endless" }, "--http", HOSTILE_FIXTURE);
        transport = { type: "http", url: http.url };
      }
      const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
      const before = process.memoryUsage().heapUsed;
      await syncMcpTools(docWith([{ id: `endless-${kind}`, transport, timeoutMs: 30_000 }]), registry);
      const during = process.memoryUsage().heapUsed;
      const [status] = listMcpServerStatus(registry);
      expect(status?.state).toBe("ready");
      expect(status?.tools).toHaveLength(MAX_TOOLS_PER_SERVER);
      const over = status?.hiddenTools.find((h) => /over the limit/.test(h.reason));
      expect(over?.name).toBe(`${MAX_LIST_PAGES * 500 - MAX_TOOLS_PER_SERVER} more tools`);
      expect(status?.hiddenTools.find((h) => h.name === "tools/list")?.reason).toMatch(
        new RegExp(`more pages after ${MAX_LIST_PAGES}`),
      );
      await closeMcpConnections(registry);
      expect(registry.all().filter((t) => t.name.startsWith("mcp__"))).toEqual([]);
      (globalThis as { gc?: () => void }).gc?.();
      const after = process.memoryUsage().heapUsed;
      console.log(
        `[mcp-hostile] endless pagination over ${kind}: heap ${mb(before)} before, ${mb(during)} after listing, ${mb(after)} after removal`,
      );
    },
  );

  it("a 200 KB description is cut, a 20,000-property schema and a 100 KB name are refused, and the view names them", async () => {
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await syncMcpTools(
      docWith([{ id: "huge", transport: hostileStdioTransport("huge"), timeoutMs: 30_000 }]),
      registry,
    );
    const [status] = listMcpServerStatus(registry);
    expect(status?.tools.map((t) => t.serverName).sort()).toEqual(["fine", "long_story"]);
    const story = registry.get("mcp__huge__long_story");
    expect(Buffer.byteLength(story!.description)).toBeLessThan(MAX_DESCRIPTION_BYTES + 200);
    expect(story!.description).toContain("[description cut by Toolgate: 204800 bytes");
    const hidden = Object.fromEntries(status!.hiddenTools.map((h) => [h.name.slice(0, 20), h.reason]));
    expect(hidden.wide).toMatch(/refused: its input schema is \d+ bytes, over the cap/);
    expect(hidden.long_story).toMatch(/description cut from 204800 bytes/);
    expect(Object.entries(hidden).find(([name]) => name.startsWith("nnnn"))?.[1]).toMatch(
      /refused: its name is 102400 bytes/,
    );
    await closeMcpConnections(registry);
  });
});

const stdioConnection = (id: string, extra: Record<string, unknown> = {}) =>
  new McpConnection(
    docWith([{ id, transport: { ...hostileStdioTransport(), ...extra }, timeoutMs: 60_000 }]).mcpServers[0]!,
  );
const textOf = (result: { content: unknown }) => (result.content as Array<{ text?: string }>)[0]?.text ?? "";

describe("log flooding (finding 4)", () => {
  it("20,000 unknown progress tokens and 20,000 replies to requests never made write a few lines and one summary, not 40,000", async () => {
    const records: LogRecord[] = [];
    const remove = addLogSink((record) => {
      if (record.server === "flood") records.push(record);
    });
    const connection = stdioConnection("flood");
    try {
      expect(textOf(await connection.callTool("flood", { count: 20_000 }))).toBe("flooded 20000");
      await connection.close();
    } finally {
      remove();
    }
    const lines = records.filter((r) => r.event !== "mcp_log_suppressed");
    const summary = records.filter((r) => r.event === "mcp_log_suppressed");
    console.log(
      `[mcp-hostile] flood: ${lines.length} lines, ${summary.length} summaries, suppressed ${summary.map((s) => s.suppressed).join("+")}`,
    );
    expect(lines.length).toBeLessThanOrEqual(LOG_LINES_PER_INTERVAL);
    expect(summary.reduce((sum, s) => sum + Number(s.suppressed), 0)).toBeGreaterThanOrEqual(
      40_000 - LOG_LINES_PER_INTERVAL * 3,
    );
  });
});

/** Host pids whose command line carries the marker (the host sees processes in every pid namespace). */
function pidsWithMarker(marker: string): number[] {
  return fs.readdirSync("/proc").flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    try {
      return fs.readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").includes(marker) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}
async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe("orphans (finding 5)", () => {
  it("a detached child the server forked ends with the server", async () => {
    const marker = `hostile-orphan-${process.pid}-${Date.now()}`;
    const connection = stdioConnection("forker");
    expect(textOf(await connection.callTool("fork", { marker }))).toMatch(/^forked \d+/);
    expect(await waitFor(() => pidsWithMarker(marker).length === 1, 10_000)).toBe(true);
    await connection.close();
    expect(
      await waitFor(() => pidsWithMarker(marker).length === 0, 15_000),
      `still running: ${pidsWithMarker(marker).join(",")}`,
    ).toBe(true);
  });
});

describe("the sandbox (finding 7)", () => {
  let probe: string;
  beforeAll(() => {
    fs.mkdirSync(dataDir, { recursive: true });
    probe = path.join(dataDir, `hostile-probe-${process.pid}`);
    fs.writeFileSync(probe, "secret", { mode: 0o600 });
    fs.writeFileSync(path.join(workspaceRoot, "notes.md"), "a user's notes");
  });
  afterAll(() => fs.rmSync(probe, { force: true }));

  it("a stdio server cannot read the data directory, the database, the app directory or a workspace; runs as another uid, elsewhere, with a clean environment and no network", async () => {
    const connection = stdioConnection("snoop", { env: { HOSTILE_MODE: "default", GIVEN: "by-admin" } });
    const snoop = async (args: Record<string, unknown>) =>
      JSON.parse(textOf(await connection.callTool("snoop", args))) as {
        content: string;
        fetched: string | null;
        uid: number;
        cwd: string;
        env: Record<string, string>;
      };
    const dbFile = process.env.DATABASE_URL!.replace(/^file:/, "");
    try {
      for (const target of [
        probe,
        dbFile,
        path.join(ROOT, "package.json"),
        path.join(ROOT, ".env"),
        path.join(workspaceRoot, "notes.md"),
      ]) {
        const seen = await snoop({ path: target });
        expect(seen.content, target).toMatch(/^ERROR (ENOENT|EACCES)/);
      }
      const self = await snoop({ path: "/etc/hostname", url: "http://127.0.0.1:9/" });
      expect(self.uid).toBe(65534);
      expect(self.cwd).toBe("/tmp");
      expect(Object.keys(self.env).sort()).toEqual(["GIVEN", "HOME", "HOSTILE_MODE", "LANG", "PATH", "PWD", "TMPDIR"]);
      expect(self.fetched).toMatch(/^ERROR (ENETUNREACH|ECONNREFUSED|EAI_AGAIN|fetch failed)/);
    } finally {
      await connection.close();
    }
    // From the outside: the server ran as a uid of its own, not the app's.
    expect(process.getuid?.()).toBe(0);
  });

  it("network is the admin's choice per server: with sandbox.network the same call reaches a loopback server", async () => {
    const server = createServer((_req, res) => res.end("ok"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as { port: number }).port;
    const connection = new McpConnection(
      docWith([{ id: "net", transport: { ...hostileStdioTransport(), sandbox: { network: true } }, timeoutMs: 20_000 }])
        .mcpServers[0]!,
    );
    try {
      const seen = JSON.parse(
        textOf(await connection.callTool("snoop", { path: "/nonexistent", url: `http://127.0.0.1:${port}/` })),
      ) as { fetched: string };
      expect(seen.fetched).toBe("HTTP 200");
    } finally {
      await connection.close();
      server.close();
    }
  });

  it("an admin's cwd in the app or data directory is refused", async () => {
    for (const cwd of [ROOT, dataDir]) {
      const connection = new McpConnection(
        docWith([{ id: "cwd", transport: { ...hostileStdioTransport(), cwd }, timeoutMs: 20_000 }]).mcpServers[0]!,
      );
      await expect(connection.listTools()).rejects.toThrow(/could not be connected: .*(app's directory|its data)/);
      await connection.close();
    }
  });

  it("the reference server-everything still works in the sandbox", async () => {
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
    await syncMcpTools(docWith([{ id: "everything", transport: everythingStdio(), timeoutMs: 30_000 }]), registry);
    const [status] = listMcpServerStatus(registry);
    expect(status?.state, status?.lastError ?? "").toBe("ready");
    const echo = registry.get("mcp__everything__echo");
    expect(echo).toBeDefined();
    await closeMcpConnections(registry);
  });
});

describe("output caps over every field (finding 3)", () => {
  let http: HttpFixture | undefined;
  afterAll(async () => http?.stop());
  const cap = 64 * 1024;

  it.each(["stdio", "http"] as const)(
    "2,000 resource links with 1 KB names, descriptions, mimeTypes and URIs over %s stay within the call's cap; 5,000 (30 MB) end at the message cap",
    async (kind) => {
      let transport: Record<string, unknown> = hostileStdioTransport();
      if (kind === "http") {
        http = await startHttpFixture({}, "--http", HOSTILE_FIXTURE);
        transport = { type: "http", url: http.url };
      }
      const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
      await syncMcpTools(
        docWith([{ id: `links-${kind}`, transport, timeoutMs: 60_000, maxOutputBytes: cap }]),
        registry,
      );
      const tool = registry.get(`mcp__links-${kind}__links`)!;
      const run = (count: number) => tool.execute!({ count }, { abortSignal: new AbortController().signal } as never);
      const before = process.memoryUsage().rss;
      const output = await run(2000);
      const stored = Buffer.byteLength(JSON.stringify(output));
      console.log(
        `[mcp-hostile] 2,000 links over ${kind}: ~12 MB sent, ${stored} bytes kept (cap ${cap}); rss ${mb(before)} -> ${mb(process.memoryUsage().rss)}`,
      );
      expect(stored).toBeLessThan(cap + 512);
      expect(JSON.stringify(output)).toMatch(/more content part\(s\) of \d+ bytes omitted/);
      await expect(run(5000)).rejects.toThrow(/MCP server links-/);
      await closeMcpConnections(registry);
    },
  );
});
