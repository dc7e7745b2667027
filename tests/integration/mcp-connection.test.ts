// The connection manager against the real fixture server, over stdio and streamable HTTP: lazy connect,
// per-call timeout, abort, a dying server, reconnect, back-off, encrypted headers, and registry sync.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parsePolicyDocument,
  ToolRegistry,
  type McpServerConfig,
  type McpServerConfigInput,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolDefinition,
} from "@/lib/policy";
import { addLogSink, type LogRecord } from "@/lib/log";
import { backoffDelay, closeMcpConnections, encryptHeaders, McpConnection, syncMcpTools } from "@/lib/tools/mcp";
import { TEST_AUTH_SECRET } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { startHttpFixture, stdioFixtureTransport, type HttpFixture } from "../support/mcp-fixture";

function parseDoc(input: PolicyDocumentInput): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}
const config = (input: Record<string, unknown>): McpServerConfig =>
  parseDoc({ mcpServers: [input as never] }).mcpServers[0]!;

async function timed<T>(work: Promise<T>): Promise<{ ms: number; result: PromiseSettledResult<T> }> {
  const started = Date.now();
  const [result] = await Promise.allSettled([work]);
  return { ms: Date.now() - started, result: result! };
}
const reason = (r: PromiseSettledResult<unknown>) =>
  r.status === "rejected" ? String((r.reason as Error).message) : `resolved: ${JSON.stringify(r.value)}`;

let http: HttpFixture;
const open: McpConnection[] = [];
beforeAll(async () => {
  process.env.AUTH_SECRET ??= TEST_AUTH_SECRET;
  // Discovery checks each listing against the pinned definitions (issue 36), which live in the database.
  const url = newSqliteUrl();
  prepareDatabase(url);
  process.env.DATABASE_URL = url;
  http = await startHttpFixture({ MCP_FIXTURE_HEADER: "x-api-key" });
});
afterAll(async () => {
  for (const c of open) await c.close();
  await closeMcpConnections();
  await http?.stop();
});

const transports = () =>
  [
    ["stdio", stdioFixtureTransport()],
    ["http", { type: "http", url: http.url }],
  ] as const;

describe.each(["stdio", "http"] as const)("McpConnection over %s", (kind) => {
  const connect = (extra: Record<string, unknown> = {}) => {
    const transport = transports().find(([k]) => k === kind)![1];
    // Generous: the timeout covers spawning and initializing too, which is slow on a loaded machine.
    const connection = new McpConnection(config({ id: `fx-${kind}`, transport, timeoutMs: 4000, ...extra }));
    open.push(connection);
    return connection;
  };

  it("discovers the tools with their schemas and annotations, and calls one", async () => {
    const connection = connect();
    const tools = await connection.listTools();
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["echo", "add", "delete_everything", "hang", "crash"]),
    );
    expect(tools.find((t) => t.name === "echo")?.annotations).toMatchObject({ readOnlyHint: true });
    expect(tools.find((t) => t.name === "add")?.inputSchema).toMatchObject({
      properties: { a: { type: "number" } },
      required: ["a", "b"],
    });
    expect(await connection.callTool("add", { a: 2, b: 3 })).toMatchObject({ content: [{ type: "text", text: "5" }] });
  });

  it("a hanging tool fails with 'timed out after N ms' within the timeout, and the server stays usable", async () => {
    const connection = connect();
    await connection.listTools();
    const { ms, result } = await timed(connection.callTool("hang", {}));
    expect(reason(result)).toMatch(new RegExp(`MCP server fx-${kind}: calling hang timed out after 4000 ms`));
    expect(ms).toBeGreaterThanOrEqual(3950);
    expect(ms).toBeLessThan(9_000); // the 4 s timeout, not a hang; room for a loaded machine
    expect(await connection.callTool("add", { a: 1, b: 1 })).toMatchObject({ content: [{ text: "2" }] });
  });

  it("honours the abort signal", async () => {
    const connection = connect({ timeoutMs: 10_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const { ms, result } = await timed(connection.callTool("hang", {}, controller.signal));
    expect(reason(result)).toMatch(/calling hang was stopped/);
    expect(ms).toBeLessThan(8_000); // stopped, not the 10 s timeout
  });
});

describe("a server that dies", () => {
  it("stdio: the call fails with 'server exited' within the timeout, and the next call reconnects", async () => {
    // Long timeout: an exit must be reported at once, not when the deadline passes (and respawning is slow under load).
    const connection = new McpConnection(
      config({ id: "fx-crash", transport: stdioFixtureTransport(), timeoutMs: 10_000 }),
    );
    open.push(connection);
    await connection.listTools();
    const { ms, result } = await timed(connection.callTool("crash", {}));
    expect(reason(result)).toMatch(/MCP server fx-crash: server exited while calling crash/);
    expect(ms).toBeLessThan(5000);
    expect(await connection.callTool("add", { a: 4, b: 5 })).toMatchObject({ content: [{ text: "9" }] });
  });

  it("http: the call fails naming the server within the timeout; while it is down a call fails at once", async () => {
    const dying = await startHttpFixture();
    const connection = new McpConnection(
      config({ id: "fx-http-crash", transport: { type: "http", url: dying.url }, timeoutMs: 10_000 }),
    );
    open.push(connection);
    await connection.listTools();
    const { ms, result } = await timed(connection.callTool("crash", {}));
    expect(reason(result)).toMatch(/MCP server fx-http-crash: server exited or is unreachable while calling crash/);
    expect(ms).toBeLessThan(5000);
    await dying.exited;
    // Back-off and the circuit breaker live in the supervisor (mcp-reference-servers.test.ts); the connection
    // itself reports a refused connect at once instead of waiting for the deadline.
    const again = await timed(connection.callTool("add", { a: 1, b: 2 }));
    expect(reason(again.result)).toMatch(/MCP server fx-http-crash could not be connected: fetch failed/);
    expect(again.ms).toBeLessThan(2000);
  });

  it("a command that cannot start fails clearly; back-off doubles up to a ceiling", async () => {
    const connection = new McpConnection(
      config({ id: "fx-missing", transport: { type: "stdio", command: "/nonexistent/mcp-server" }, timeoutMs: 2000 }),
    );
    open.push(connection);
    expect(reason((await timed(connection.listTools())).result)).toMatch(
      /MCP server fx-missing could not be connected/,
    );
    expect([1, 2, 3, 10].map(backoffDelay)).toEqual([500, 1000, 2000, 30_000]);
  });
});

describe("HTTP sessions", () => {
  it("a server that forgot our session (404) gets a new one and the call goes through, once", async () => {
    const stateful = await startHttpFixture({}, "--http-sessions");
    const records: LogRecord[] = [];
    const remove = addLogSink((r) => records.push(r));
    const connection = new McpConnection(
      config({ id: "fx-sessions", transport: { type: "http", url: stateful.url }, timeoutMs: 5000 }),
    );
    open.push(connection);
    try {
      expect(await connection.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
      await connection.callTool("forget_sessions", {});
      await new Promise((r) => setTimeout(r, 20));
      const { ms, result } = await timed(connection.callTool("add", { a: 2, b: 2 }));
      expect(reason(result)).toBe(`resolved: ${JSON.stringify({ content: [{ type: "text", text: "4" }] })}`);
      expect(ms).toBeLessThan(2000);
      expect(records.filter((r) => r.event === "mcp_session_reinitialized")).toHaveLength(1);
    } finally {
      remove();
      await stateful.stop();
    }
  });
});

describe("HTTP headers", () => {
  it("are sent decrypted from headersEncrypted", async () => {
    const headersEncrypted = encryptHeaders("fx-auth", { "x-api-key": "s3cret" }, TEST_AUTH_SECRET);
    const connection = new McpConnection(
      config({ id: "fx-auth", transport: { type: "http", url: http.url, headersEncrypted } }),
    );
    open.push(connection);
    expect(await connection.callTool("whoami", {})).toMatchObject({ content: [{ text: "s3cret" }] });
  });
});

describe("syncMcpTools", () => {
  const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
  const server: McpServerConfigInput = {
    id: "fx-sync",
    transport: stdioFixtureTransport(),
    allowedModes: ["coding"],
    tools: { hang: { allowedModes: [] } },
  };
  const enabled: PolicyDocumentInput = { system: { mcp: { enabled: true, allowedServers: ["fx-sync"] } } };
  const names = () =>
    registry
      .all()
      .map((t) => t.name)
      .filter((n) => n.startsWith("mcp__"))
      .sort();

  it("registers a configured, allowed server's tools as plugin tools, with admin-chosen modes", async () => {
    await syncMcpTools(parseDoc({ ...enabled, mcpServers: [server] }), registry);
    expect(names()).toEqual([
      "mcp__fx-sync__add",
      "mcp__fx-sync__crash",
      "mcp__fx-sync__delete_everything",
      "mcp__fx-sync__echo",
      "mcp__fx-sync__grow",
      "mcp__fx-sync__hang",
      "mcp__fx-sync__picture",
    ]);
    expect(registry.meta().find((m) => m.name === "mcp__fx-sync__add")).toEqual({
      name: "mcp__fx-sync__add",
      group: "plugin",
      allowedModes: ["coding"],
      ownerOnly: false,
      pluginId: "fx-sync",
    });
    expect(registry.getEffectiveModes("mcp__fx-sync__hang")).toEqual([]);
    await expect(registry.get("mcp__fx-sync__add")!.execute({ a: 20, b: 22 }, { callId: "c" })).resolves.toBe("42");
  });

  it("is stable when nothing changed (same meta identity), and rebuilds on a config change", async () => {
    const document = parseDoc({ ...enabled, mcpServers: [server] });
    await syncMcpTools(document, registry);
    const before = registry.meta();
    await syncMcpTools(parseDoc({ ...enabled, mcpServers: [server] }), registry);
    expect(registry.meta()).toBe(before);
    await syncMcpTools(
      parseDoc({ ...enabled, mcpServers: [{ ...server, requireApprovalForDestructive: true }] }),
      registry,
    );
    expect(registry.meta().find((m) => m.name === "mcp__fx-sync__delete_everything")?.requiresApproval).toBe(true);
    expect(registry.meta().find((m) => m.name === "mcp__fx-sync__echo")?.requiresApproval).toBeUndefined();
  });

  it("removes the tools of a server no longer configured", async () => {
    await syncMcpTools(parseDoc({ ...enabled, mcpServers: [] }), registry);
    expect(names()).toEqual([]);
  });

  it("with MCP disabled it contacts no server but keeps configured tool names known", async () => {
    const records: LogRecord[] = [];
    const remove = addLogSink((r) => records.push(r));
    try {
      const offline: McpServerConfigInput = {
        id: "fx-off",
        transport: { type: "stdio", command: "/nonexistent/never-started" },
        allowedModes: ["coding"],
        tools: { add: {} },
      };
      await syncMcpTools(parseDoc({ mcpServers: [offline] }), registry);
      expect(names()).toEqual(["mcp__fx-off__add"]);
      expect(records.filter((r) => r.event.startsWith("mcp_connect") || r.event === "mcp_server_down")).toEqual([]);
      // Allowed now: the sync tries to connect, fails, logs, and the turn would go on with the known names.
      await syncMcpTools(
        parseDoc({ system: { mcp: { enabled: true, allowedServers: ["fx-off"] } }, mcpServers: [offline] }),
        registry,
      );
      expect(records.map((r) => r.event)).toContain("mcp_server_down");
      expect(names()).toEqual(["mcp__fx-off__add"]);
    } finally {
      remove();
      await syncMcpTools(parseDoc({}), registry);
    }
  });
});
