// Issue 7 "Done when", end to end against the built app: a member chats, the offline model calls plugin tools
// of the fixture MCP server (spawned by the app over stdio, and over streamable HTTP), and the policy decides.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { signedIn, type HttpClient } from "../support/http-client";
import { startHttpFixture, stdioFixtureTransport, type HttpFixture } from "../support/mcp-fixture";
import { appTargets } from "../support/targets";

type Chunk = { type: string; [key: string]: unknown };

async function chat(client: HttpClient, sessionId: string, text: string): Promise<{ chunks: Chunk[]; ms: number }> {
  const started = Date.now();
  const res = await client.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessionId, message: { role: "user", parts: [{ type: "text", text }] } }),
  });
  expect(res.status).toBe(200);
  const body = await res.text();
  const chunks = body
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice(6)) as Chunk);
  return { chunks, ms: Date.now() - started };
}

const textOf = (chunks: Chunk[]) =>
  chunks
    .filter((c) => c.type === "text-delta")
    .map((c) => String(c.delta))
    .join("");
const ofType = (chunks: Chunk[], type: string) => chunks.filter((c) => c.type === type);
const denialOf = (chunks: Chunk[]) =>
  ofType(chunks, "data-tool_denied")[0]?.data as { errorCode?: string; message?: string } | undefined;
const errorOf = (chunks: Chunk[]) =>
  JSON.parse(String(ofType(chunks, "tool-output-error")[0]?.errorText ?? "{}")) as {
    error_code?: string;
    message?: string;
  };

describe.each(appTargets())("MCP plugin tools through chat (%s)", (_kind, app) => {
  let db: Db;
  let http: HttpFixture;
  let dying: HttpFixture;
  let member: HttpClient;
  let admin: HttpClient;
  let memberId: string;
  let sessionId: string;

  async function setPolicy(document: Record<string, unknown>) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" }, select: { version: true } });
    await db.policyVersion.create({
      data: { version: (last?.version ?? 0) + 1, document: document as never, createdById: null, comment: "mcp test" },
    });
  }

  /** Discovery runs in the background (turns never wait on it): wait until the admin's view shows the servers ready. */
  async function ready(ids: string[]) {
    const until = Date.now() + 20_000;
    for (;;) {
      const view = await admin.json("/api/mcp/servers", { method: "GET" });
      const states = new Map((view.body.servers as Array<{ id: string; state: string }>).map((s) => [s.id, s.state]));
      if (ids.every((id) => states.get(id) === "ready")) return;
      if (Date.now() > until) throw new Error(`MCP servers not ready: ${JSON.stringify([...states])}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  function policy({ enabled = true, timeoutMs = 5000, destructive = false } = {}) {
    const common = {
      allowedModes: ["coding"],
      timeoutMs,
      requireApprovalForDestructive: destructive,
      tools: { add: {} },
    };
    return {
      modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
      system: { mcp: { enabled, allowedServers: ["fixture", "fixture-http", "dying-http"] } },
      mcpServers: [
        { id: "fixture", transport: stdioFixtureTransport(), ...common },
        { id: "fixture-http", transport: { type: "http", url: http.url }, ...common },
        { id: "dying-http", transport: { type: "http", url: dying.url }, ...common },
      ],
    };
  }

  async function setMode(mode: "chat_safe" | "coding") {
    const res = await member.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode } });
    expect(res.status).toBe(200);
  }

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    http = await startHttpFixture();
    dying = await startHttpFixture();
    const row = await db.user.findUnique({ where: { email: "member@example.com" }, select: { id: true } });
    memberId = row!.id;
    await setPolicy(policy());
    member = await signedIn(app.url, "member@example.com");
    admin = await signedIn(app.url, "admin@example.com");
    await ready(["fixture", "fixture-http", "dying-http"]);
    const created = await member.json("/api/sessions", { method: "POST", body: {} });
    expect(created.status).toBe(201);
    sessionId = created.body.id;
    await setMode("coding");
  });

  afterAll(async () => {
    // Later test files on this app expect the default policy (and no MCP server) again.
    await setPolicy({});
    await http?.stop();
    await dying?.stop();
    await db?.$disconnect();
  });

  it.each([
    ["stdio", "fixture"],
    ["http", "fixture-http"],
  ])("a member in coding calls a plugin tool over %s and sees the result", async (_t, server) => {
    const { chunks } = await chat(member, sessionId, `/tool mcp__${server}__add {"a":2,"b":3}`);
    expect(ofType(chunks, "tool-output-available")).toEqual([expect.objectContaining({ output: "5" })]);
    expect(textOf(chunks)).toContain(`mcp__${server}__add" returned: 5`);
    expect(chunks.at(-1)).toMatchObject({ type: "finish" });
  });

  it("arguments are validated against the server's schema before the call", async () => {
    const { chunks } = await chat(member, sessionId, `/tool mcp__fixture__add {"a":"two"}`);
    expect(denialOf(chunks)).toMatchObject({ errorCode: "INVALID_ARGUMENTS" });
    expect(ofType(chunks, "tool-output-available")).toEqual([]);
  });

  it.each([
    ["stdio", "fixture"],
    ["http", "fixture-http"],
  ])(
    "a hanging tool over %s gives the model a clear error within the timeout, and the chat goes on",
    async (_t, server) => {
      const { chunks, ms } = await chat(member, sessionId, `/tool mcp__${server}__hang {}`);
      expect(errorOf(chunks)).toMatchObject({ error_code: "TOOL_FAILED" });
      expect(errorOf(chunks).message).toContain(`MCP server ${server}: calling hang timed out after 5000 ms`);
      expect(textOf(chunks)).toMatch(/timed out after 5000 ms/);
      expect(chunks.at(-1)).toMatchObject({ type: "finish" });
      expect(ms).toBeGreaterThanOrEqual(5000);
      expect(ms).toBeLessThan(10_000);
    },
  );

  it.each([
    ["stdio", "fixture", /server exited while calling crash/],
    ["http", "dying-http", /server exited or is unreachable while calling crash/],
  ])(
    "a server that dies over %s gives the model a clear error within the timeout, and the chat goes on",
    async (_t, server, expected) => {
      const { chunks, ms } = await chat(member, sessionId, `/tool mcp__${server}__crash {}`);
      expect(errorOf(chunks).message).toMatch(expected);
      expect(errorOf(chunks).message).toContain(`MCP server ${server}`);
      expect(textOf(chunks)).toMatch(expected);
      expect(chunks.at(-1)).toMatchObject({ type: "finish" });
      // Reported when the process dies, well before the 5 s timeout.
      expect(ms).toBeLessThan(5000);
    },
  );

  it("after the stdio server died, it is restarted in the background and the next call works", async () => {
    await ready(["fixture"]);
    const { chunks } = await chat(member, sessionId, `/tool mcp__fixture__add {"a":40,"b":2}`);
    expect(ofType(chunks, "tool-output-available")).toEqual([expect.objectContaining({ output: "42" })]);
  });

  it("with requireApprovalForDestructive, a destructive tool waits for an owner instead of running", async () => {
    await setPolicy(policy({ destructive: true }));
    const { chunks } = await chat(member, sessionId, `/tool mcp__fixture__delete_everything {}`);
    expect(ofType(chunks, "data-approval_pending")).toHaveLength(1);
    expect(ofType(chunks, "tool-output-available")).toEqual([]);
    // The session's turn waits for that owner; Stop ends it so the next tests can chat here again.
    expect((await member.json(`/api/sessions/${sessionId}/stop`, { method: "POST", body: {} })).body).toEqual({
      stopped: true,
    });
    await setPolicy(policy());
  });

  it("in chat_safe the call is MODE_DENIED", async () => {
    await setMode("chat_safe");
    try {
      const { chunks } = await chat(member, sessionId, `/tool mcp__fixture__add {"a":2,"b":3}`);
      expect(denialOf(chunks)).toMatchObject({ errorCode: "MODE_DENIED" });
      // The answer says what the refusal means; the code is the denial card's (issue 15).
      expect(textOf(chunks)).toContain("it is not available in this chat's mode");
      expect(textOf(chunks)).not.toContain("MODE_DENIED");
      expect(ofType(chunks, "tool-output-available")).toEqual([]);
    } finally {
      await setMode("coding");
    }
  });

  it("Y3 with MCP disabled the call is TOOL_NOT_AVAILABLE", async () => {
    await setPolicy(policy({ enabled: false }));
    const { chunks } = await chat(member, sessionId, `/tool mcp__fixture__add {"a":2,"b":3}`);
    expect(denialOf(chunks)).toMatchObject({ errorCode: "TOOL_NOT_AVAILABLE" });
    expect(textOf(chunks)).toContain("it is not available here");
    expect(textOf(chunks)).not.toContain("TOOL_NOT_AVAILABLE");
    expect(ofType(chunks, "tool-output-available")).toEqual([]);
    await setPolicy(policy());
  });
});
