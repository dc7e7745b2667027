// Issue 14 against the official MCP reference servers (devDependencies), spawned for real over stdio and
// streamable HTTP, plus a server that never answers and one that exits at once. The registry here is private to
// the test; the app-level latency check is in mcp-turn-latency.test.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  parsePolicyDocument,
  ToolRegistry,
  type McpServerConfigInput,
  type PolicyDocument,
  type ToolDefinition,
} from "@/lib/policy";
import {
  closeMcpConnections,
  isMcpContentOutput,
  McpConnection,
  listMcpServerStatus,
  refreshMcpTools,
  syncMcpTools,
  TRUNCATION_MARKER,
  type McpContentOutput,
  type McpServerStatus,
} from "@/lib/tools/mcp";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import { stdioFixtureTransport } from "../support/mcp-fixture";
import {
  crashingStdio,
  everythingStdio,
  filesystemStdio,
  hangingStdio,
  memoryStdio,
  startEverythingHttp,
  type EverythingHttp,
} from "../support/reference-servers";

const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-mcp-ref-"));
const FS_READ_LIMIT = 256 * 1024;

function documentWith(servers: McpServerConfigInput[], extra: Record<string, unknown> = {}): PolicyDocument {
  const parsed = parsePolicyDocument({
    system: { mcp: { enabled: true, allowedServers: servers.map((s) => s.id) } },
    mcpServers: servers.map((s) => ({ allowedModes: ["coding"], timeoutMs: 8000, ...s })),
    ...extra,
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

const statusOf = (id: string): McpServerStatus => {
  const status = listMcpServerStatus(registry).find((s) => s.id === id);
  if (!status) throw new Error(`no status for ${id}`);
  return status;
};
const call = (name: string, input: Record<string, unknown>) => {
  const tool = registry.get(name);
  if (!tool) throw new Error(`${name} is not registered`);
  return tool.execute(input, {
    callId: "c",
    context: { limits: { maxReadBytes: FS_READ_LIMIT, maxWriteBytes: FS_READ_LIMIT } },
  });
};
async function eventually<T>(check: () => T | undefined | false, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > until) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; error?: string; value?: T }> {
  const started = Date.now();
  try {
    const value = await work();
    return { ms: Date.now() - started, value };
  } catch (error) {
    return { ms: Date.now() - started, error: error instanceof Error ? error.message : String(error) };
  }
}

let http: EverythingHttp | undefined;
beforeAll(() => {
  // Discovery checks each listing against the pinned definitions (issue 36), which live in the database.
  const url = newSqliteUrl();
  prepareDatabase(url);
  process.env.DATABASE_URL = url;
});
afterAll(async () => {
  await closeMcpConnections(registry);
  await http?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe("server-everything over stdio", () => {
  beforeAll(async () => {
    await syncMcpTools(documentWith([{ id: "everything", transport: everythingStdio() }]), registry);
  });

  it("is ready with its tools registered, and hides the task-only tool with the reason", async () => {
    const status = statusOf("everything");
    expect(status.state).toBe("ready");
    expect(status.tools.map((t) => t.serverName)).toEqual(
      expect.arrayContaining(["echo", "get-sum", "get-tiny-image", "get-resource-links"]),
    );
    // Registered after initialization (so announced by list_changed) and task-only: known, but never offered.
    const hidden = await eventually(() =>
      statusOf("everything").hiddenTools.find((t) => t.name === "simulate-research-query"),
    );
    expect(hidden.reason).toMatch(/taskSupport: required/);
    expect(registry.get("mcp__everything__simulate-research-query")).toBeUndefined();
  });

  it("returns an image as an image part, not base64 inside text", async () => {
    const output = await call("mcp__everything__get-tiny-image", {});
    expect(isMcpContentOutput(output)).toBe(true);
    const parts = (output as McpContentOutput).parts;
    expect(parts.map((p) => p.type)).toEqual(expect.arrayContaining(["text", "image"]));
    const image = parts.find((p) => p.type === "image")!;
    expect(image).toMatchObject({ mimeType: "image/png" });
    expect(parts.filter((p) => p.type === "text").some((p) => "text" in p && p.text.includes("iVBORw0KGgo"))).toBe(
      false,
    );
  });

  it("returns resource links as link parts", async () => {
    const output = (await call("mcp__everything__get-resource-links", { count: 2 })) as McpContentOutput;
    const links = output.parts.filter((p) => p.type === "resource_link");
    expect(links).toHaveLength(2);
    expect(links[0]).toMatchObject({ uri: expect.stringMatching(/^demo:\/\//) });
  });
});

describe("server-filesystem and server-memory over stdio", () => {
  const files = path.join(tmp, "files");
  beforeAll(async () => {
    fs.mkdirSync(files, { recursive: true });
    fs.writeFileSync(path.join(files, "big.txt"), "0123456789abcdef".repeat(256 * 1024)); // 4 MiB
    await syncMcpTools(
      documentWith([
        { id: "files", transport: filesystemStdio(files) },
        { id: "memory", transport: memoryStdio(path.join(tmp, "memory.jsonl")) },
      ]),
      registry,
    );
  });

  it("a 4 MB file read comes back cut to the fs read limit, with the marker", async () => {
    const output = await call("mcp__files__read_text_file", { path: path.join(files, "big.txt") });
    expect(typeof output).toBe("string");
    const text = output as string;
    expect(Buffer.byteLength(text)).toBeLessThan(FS_READ_LIMIT + 200);
    // server-filesystem answers with structured content ({ content }); too big as an object, it arrives as cut JSON text.
    const marker = new RegExp(`${TRUNCATION_MARKER.replace("[", "\\[")}: (\\d+) bytes, cap ${FS_READ_LIMIT} bytes\\]$`);
    expect(Number(marker.exec(text)?.[1])).toBeGreaterThanOrEqual(4 * 1024 * 1024);
  });

  it("a per-server cap overrides the fs read limit", async () => {
    const doc = documentWith([
      { id: "files", transport: filesystemStdio(files), maxOutputBytes: 4096 },
      { id: "memory", transport: memoryStdio(path.join(tmp, "memory.jsonl")) },
    ]);
    refreshMcpTools(doc, registry);
    const text = (await call("mcp__files__read_text_file", { path: path.join(files, "big.txt") })) as string;
    expect(Buffer.byteLength(text)).toBeLessThan(4096 + 200);
    expect(text).toContain("cap 4096 bytes]");
  });

  it("server-memory stores and reads back entities", async () => {
    await call("mcp__memory__create_entities", {
      entities: [{ name: "toolgate", entityType: "project", observations: ["gates tools"] }],
    });
    const graph = await call("mcp__memory__read_graph", {});
    expect(JSON.stringify(graph)).toContain("gates tools");
  });
});

describe("unhealthy servers never hold a turn", () => {
  it("a server that never answers: refresh returns at once, its tools fail fast with the reason, then the circuit opens", async () => {
    // "At once" = far below the server's 1500 ms timeout, which any wait for it would take; not a tighter figure,
    // because the suite shares two cores with the build of other steps and a browser.
    const AT_ONCE_MS = 500;
    const doc = documentWith([{ id: "hang", transport: hangingStdio(), timeoutMs: 1500, tools: { work: {} } }]);
    const refresh = await timed(async () => refreshMcpTools(doc, registry));
    expect(refresh.ms).toBeLessThan(AT_ONCE_MS);
    expect(statusOf("hang").state).toBe("connecting");
    const early = await timed(() => call("mcp__hang__work", {}) as Promise<unknown>);
    expect(early.error).toMatch(/MCP server hang is still connecting/);
    expect(early.ms).toBeLessThan(AT_ONCE_MS);
    const down = await eventually(() => statusOf("hang").state === "down" && statusOf("hang"), 5000);
    expect(down.lastError).toMatch(/timed out after 1500 ms/);
    expect(down.nextAttemptAt).not.toBeNull();
    const late = await timed(() => call("mcp__hang__work", {}) as Promise<unknown>);
    expect(late.error).toMatch(/MCP server hang is down \(.*timed out.*\); next attempt in \d+ ms/);
    expect(late.ms).toBeLessThan(AT_ONCE_MS);
    // Every turn calls refresh: it never waits, however often it runs while the server is down.
    const again = await timed(async () => refreshMcpTools(doc, registry));
    expect(again.ms).toBeLessThan(AT_ONCE_MS);
  });

  it("a server that exits at once is down with its stderr, for the admin and in the error", async () => {
    await syncMcpTools(documentWith([{ id: "crashy", transport: crashingStdio(), tools: { work: {} } }]), registry);
    const status = statusOf("crashy");
    expect(status.state).toBe("down");
    expect(status.stderrTail).toContain("boom: missing API key");
    expect(status.lastError).toContain("boom: missing API key");
    const result = await timed(() => call("mcp__crashy__work", {}) as Promise<unknown>);
    expect(result.error).toMatch(/MCP server crashy is down \(.*boom: missing API key/);
  });

  it("a server switched off in the system settings is not contacted and its tools say so", async () => {
    const parsed = parsePolicyDocument({
      mcpServers: [{ id: "off", transport: hangingStdio(), allowedModes: ["coding"], tools: { work: {} } }],
    });
    if (!parsed.ok) throw new Error("bad doc");
    await syncMcpTools(parsed.document, registry);
    expect(statusOf("off").state).toBe("disabled");
    expect((await timed(() => call("mcp__off__work", {}) as Promise<unknown>)).error).toMatch(
      /not enabled in the system settings/,
    );
  });
});

describe("list_changed", () => {
  it("a tool the server adds at runtime is registered without another sync", async () => {
    await syncMcpTools(documentWith([{ id: "grower", transport: stdioFixtureTransport() }]), registry);
    expect(registry.get("mcp__grower__grown_1")).toBeUndefined();
    await call("mcp__grower__grow", {});
    await eventually(() => registry.get("mcp__grower__grown_1"));
    expect(await call("mcp__grower__grown_1", {})).toBe("grown_1");
  });

  it("changes announced while a listing is under way are not lost", async () => {
    await Promise.all([call("mcp__grower__grow", {}), call("mcp__grower__grow", {}), call("mcp__grower__grow", {})]);
    await eventually(() => registry.get("mcp__grower__grown_4"));
    expect(statusOf("grower").tools.map((t) => t.serverName)).toEqual(
      expect.arrayContaining(["grown_2", "grown_3", "grown_4"]),
    );
  });
});

describe("server-everything over streamable HTTP", () => {
  beforeAll(async () => {
    http = await startEverythingHttp();
  });
  const doc = () =>
    documentWith([{ id: "everything-http", transport: { type: "http", url: http!.url }, timeoutMs: 10_000 }]);

  it("discovers and calls; after the server restarts the next call re-initialises the session transparently", async () => {
    await syncMcpTools(doc(), registry);
    expect(statusOf("everything-http").state).toBe("ready");
    expect(await call("mcp__everything-http__get-sum", { a: 2, b: 3 })).toMatch(/5/);
    const port = http!.port;
    await http!.stop();
    http = await startEverythingHttp(port);
    // The dead stream was noticed (down, back-off 500 ms); once that has passed, the call itself reconnects.
    const status = statusOf("everything-http");
    if (status.nextAttemptAt)
      await new Promise((r) => setTimeout(r, Math.max(0, Date.parse(status.nextAttemptAt!) - Date.now()) + 10));
    expect(await call("mcp__everything-http__get-sum", { a: 4, b: 5 })).toMatch(/9/);
    expect(statusOf("everything-http").state).toBe("ready");
  });

  it("McpConnection alone: a call after a restart on the same port starts a new session instead of failing", async () => {
    const connection = new McpConnection(
      documentWith([{ id: "raw-http", transport: { type: "http", url: http!.url } }]).mcpServers[0]!,
    );
    try {
      await connection.callTool("get-sum", { a: 1, b: 1 });
      const port = http!.port;
      await http!.stop();
      http = await startEverythingHttp(port);
      const result = await connection.callTool("get-sum", { a: 2, b: 2 });
      expect(JSON.stringify(result)).toMatch(/4/);
    } finally {
      await connection.close();
    }
  });

  it("a server killed mid-call is reported as gone within seconds, not as a timeout", async () => {
    await syncMcpTools(doc(), registry);
    // The previous test restarted the server under this connection: let the background retry bring it back.
    await eventually(() => statusOf("everything-http").state === "ready");
    const pending = timed(
      () =>
        call("mcp__everything-http__trigger-long-running-operation", { duration: 30, steps: 30 }) as Promise<unknown>,
    );
    await new Promise((r) => setTimeout(r, 1500));
    await http!.stop();
    const result = await pending;
    expect(result.error).toMatch(/MCP server everything-http: server exited|unreachable/);
    expect(result.error).not.toMatch(/timed out/);
    expect(result.ms).toBeLessThan(1500 + 4000);
    await eventually(() => statusOf("everything-http").state === "down");
  });
});
