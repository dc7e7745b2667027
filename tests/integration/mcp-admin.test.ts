// Issue 14 against the built app: a turn never waits on an unhealthy MCP server (hanging ones add < 1 s, for
// several users at once), plugin tools show in the tools list and matrix right after saving, the admin's MCP view
// (status, stderr tail, reconnect) and the OpenClaw import endpoint, with the checks an attacker would try.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { signedIn, type HttpClient } from "../support/http-client";
import { hostileStdioTransport, stdioFixtureTransport } from "../support/mcp-fixture";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { crashingStdio, everythingStdio, filesystemStdio, hangingStdio } from "../support/reference-servers";
import { appTargets } from "../support/targets";

async function turn(client: HttpClient, sessionId: string, text: string): Promise<{ ms: number; body: string }> {
  const started = Date.now();
  const res = await client.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sessionId, message: { role: "user", parts: [{ type: "text", text }] } }),
  });
  expect(res.status).toBe(200);
  const body = await res.text();
  return { ms: Date.now() - started, body };
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const HANG_TIMEOUT_MS = 15_000;

describe.each(appTargets())("MCP admin and turn latency (%s)", (_kind, app) => {
  let db: Db;
  let admin: HttpClient;
  const users: Array<{ client: HttpClient; sessionId: string }> = [];

  async function save(document: Record<string, unknown>) {
    const current = await admin.json("/api/policy", { method: "GET" });
    const res = await admin.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: current.body.version, document },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  async function insertDirectly(document: Record<string, unknown>) {
    // As another instance or a script would: this process learns of it on its next turn or admin read.
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" }, select: { version: true } });
    await db.policyVersion.create({
      data: {
        version: (last?.version ?? 0) + 1,
        document: document as never,
        createdById: null,
        comment: "mcp-admin test",
      },
    });
  }

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    admin = await signedIn(app.url, "admin@example.com");
    for (const email of ["member@example.com", "owner@example.com", "admin@example.com"]) {
      const client = await signedIn(app.url, email);
      const created = await client.json("/api/sessions", { method: "POST", body: {} });
      expect(created.status).toBe(201);
      users.push({ client, sessionId: created.body.id });
    }
  });

  afterAll(async () => {
    await insertDirectly({});
    await admin.json("/api/mcp/servers", { method: "GET" });
    await db?.$disconnect();
  });

  // Waiting on either hanging server would cost its 15 s timeout. The bound is a third of that: a loaded CI machine
  // (three turns at once beside other suites) once took 1.4 s over its baseline without any wait, and a turn that
  // waits on the servers still fails it. The latency itself is measured in the benchmarks, not here.
  it("two servers that never answer add nothing like their timeout to turns, for three users at once", async () => {
    await insertDirectly({});
    const quiet = async () => Promise.all(users.map((u) => turn(u.client, u.sessionId, "hello")));
    await quiet(); // warm-up (first compilation of routes)
    const baseline = median((await quiet()).map((r) => r.ms));
    await insertDirectly({
      system: { mcp: { enabled: true, allowedServers: ["hang-a", "hang-b"] } },
      mcpServers: [
        {
          id: "hang-a",
          transport: hangingStdio(),
          allowedModes: ["chat_safe", "coding"],
          timeoutMs: HANG_TIMEOUT_MS,
          tools: { work: {} },
        },
        { id: "hang-b", transport: hangingStdio(), allowedModes: ["chat_safe", "coding"], timeoutMs: HANG_TIMEOUT_MS },
      ],
    });
    const rounds: number[] = [];
    for (let i = 0; i < 3; i += 1) rounds.push(...(await quiet()).map((r) => r.ms));
    const worst = Math.max(...rounds);
    console.log(
      `[mcp-admin] turn latency: baseline median ${baseline} ms, with two hanging servers worst ${worst} ms, median ${median(rounds)} ms`,
    );
    expect(worst - baseline).toBeLessThan(HANG_TIMEOUT_MS / 3);
    // A call of the hanging server's tool fails at once with the reason instead of waiting 15 s.
    const call = await turn(users[0]!.client, users[0]!.sessionId, "/tool mcp__hang-a__work {}");
    expect(call.body).toMatch(/MCP server hang-a is still connecting/);
    expect(call.ms - baseline).toBeLessThan(HANG_TIMEOUT_MS / 3);
    const view = await admin.json("/api/mcp/servers", { method: "GET" });
    expect(view.body.servers.map((s: { id: string; state: string }) => [s.id, s.state])).toEqual([
      ["hang-a", "connecting"],
      ["hang-b", "connecting"],
    ]);
  });

  it("a 4 MB file read through server-filesystem is cut to the fs read limit in the stream and the database", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-4mb-"));
    fs.writeFileSync(path.join(dir, "big.txt"), "0123456789abcdef".repeat(256 * 1024));
    const memberId = (await users[0]!.client.json("/api/me", { method: "GET" })).body.user.id;
    const cap = 64 * 1024;
    await save({
      modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
      system: { mcp: { enabled: true, allowedServers: ["files"] }, fs: { maxReadBytes: cap } },
      mcpServers: [{ id: "files", transport: filesystemStdio(dir), allowedModes: ["coding"], timeoutMs: 20_000 }],
    });
    const { client, sessionId } = users[0]!;
    expect(
      (await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(200);
    try {
      const { body } = await turn(
        client,
        sessionId,
        `/tool mcp__files__read_text_file ${JSON.stringify({ path: path.join(dir, "big.txt") })}`,
      );
      expect(body).toContain("[output truncated by Toolgate: ");
      const rows = await db.message.findMany({ where: { sessionId }, select: { content: true, parts: true } });
      const stored = rows.reduce((sum, row) => sum + row.content.length + JSON.stringify(row.parts ?? null).length, 0);
      console.log(`[mcp-admin] 4 MiB file read: stream ${body.length} bytes, stored ${stored} bytes, cap ${cap}`);
      // The output appears in the stream and in the stored call result (and the offline model quotes it back).
      expect(body.length).toBeLessThan(1.5 * cap);
      expect(stored).toBeLessThan(2.5 * cap);
    } finally {
      await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "chat_safe" } });
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a resource link a tool returned opens through its server, for that user and session only", async () => {
    const memberId = (await users[0]!.client.json("/api/me", { method: "GET" })).body.user.id;
    await save({
      modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
      system: { mcp: { enabled: true, allowedServers: ["everything"] } },
      mcpServers: [{ id: "everything", transport: everythingStdio(), allowedModes: ["coding"], timeoutMs: 20_000 }],
    });
    const { client, sessionId } = users[0]!;
    expect(
      (await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(200);
    try {
      const { body } = await turn(client, sessionId, '/tool mcp__everything__get-resource-links {"count":1}');
      const uri = /"uri":"(demo:\/\/[^"]+)"/.exec(body)?.[1];
      expect(uri, body.slice(0, 2000)).toBeDefined();
      const url = (session: string, server: string, u: string) =>
        `/api/mcp/resource?${new URLSearchParams({ session, server, uri: u })}`;
      const ok = await client.fetch(url(sessionId, "everything", uri!));
      expect(ok.status).toBe(200);
      expect(ok.headers.get("x-content-type-options")).toBe("nosniff");
      expect(ok.headers.get("content-security-policy")).toContain("sandbox");
      expect((await ok.arrayBuffer()).byteLength).toBeGreaterThan(0);
      // A URI the server never returned here, another user's session, a foreign server, and no session at all.
      expect(
        (await client.fetch(url(sessionId, "everything", "demo://resource/static/document/secret.md"))).status,
      ).toBe(403);
      expect((await users[1]!.client.fetch(url(sessionId, "everything", uri!))).status).toBe(404);
      expect((await client.fetch(url(sessionId, "files", uri!))).status).toBe(403);
      expect((await client.fetch(`/api/mcp/resource?session=${sessionId}&server=../x&uri=a`)).status).toBe(422);
      const anonymous = await fetch(`${app.url}${url(sessionId, "everything", uri!)}`);
      expect(anonymous.status).toBe(401);
    } finally {
      await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "chat_safe" } });
    }
  });

  it("plugin tools are in the tools list and the matrix right after saving, without any chat", async () => {
    await save({
      system: { mcp: { enabled: true, allowedServers: ["fx"] } },
      mcpServers: [{ id: "fx", transport: stdioFixtureTransport(), allowedModes: ["coding"], timeoutMs: 10_000 }],
    });
    const tools = await admin.json("/api/policy/tools", { method: "GET" });
    const names = tools.body.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(["mcp__fx__echo", "mcp__fx__add", "mcp__fx__grow"]));
    const matrix = await admin.json("/api/policy/effective", {
      method: "POST",
      body: { context: { roles: ["member"] } },
    });
    expect(matrix.status).toBe(200);
    expect(JSON.stringify(matrix.body.matrix)).toContain("mcp__fx__add");
    const view = await admin.json("/api/mcp/servers", { method: "GET" });
    const fx = view.body.servers.find((s: { id: string }) => s.id === "fx");
    expect(fx).toMatchObject({ state: "ready", transport: "stdio", lastError: null });
    expect(fx.tools.map((t: { name: string }) => t.name)).toContain("mcp__fx__echo");
  });

  it("saving a policy with a server that never answers returns within 5 s, not its 15 s timeout", async () => {
    const started = Date.now();
    await save({
      system: { mcp: { enabled: true, allowedServers: ["hang-save"] } },
      mcpServers: [{ id: "hang-save", transport: hangingStdio(), allowedModes: ["coding"], timeoutMs: 15_000 }],
    });
    expect(Date.now() - started).toBeLessThan(7000);
  });

  it("a server that exits at once shows as down with its stderr; reconnect retries; bad ids are refused", async () => {
    await save({
      system: { mcp: { enabled: true, allowedServers: ["crashy"] } },
      mcpServers: [{ id: "crashy", transport: crashingStdio(), allowedModes: ["coding"], timeoutMs: 5000 }],
    });
    const view = await admin.json("/api/mcp/servers", { method: "GET" });
    const crashy = view.body.servers.find((s: { id: string }) => s.id === "crashy");
    expect(crashy.state).toBe("down");
    expect(crashy.stderrTail).toContain("boom: missing API key");
    expect(crashy.lastError).toContain("boom: missing API key");
    const again = await admin.json("/api/mcp/servers/crashy/reconnect", { method: "POST" });
    expect(again.status).toBe(200);
    expect(again.body.server).toMatchObject({ id: "crashy", state: "down" });
    expect((await admin.json("/api/mcp/servers/nope/reconnect", { method: "POST" })).status).toBe(404);
    const bad = await admin.json("/api/mcp/servers/..%2Fetc/reconnect", { method: "POST" });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).not.toMatch(/\/work|node_modules|at /);
  });

  it("issue 36 over HTTP: a rug pull keeps asking, the admin sees the held change and accepts exactly it; members and bad input are refused", async () => {
    const memberId = (await users[0]!.client.json("/api/me", { method: "GET" })).body.user.id;
    await save({
      modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
      system: { mcp: { enabled: true, allowedServers: ["rug"] } },
      mcpServers: [
        {
          id: "rug",
          transport: hostileStdioTransport(),
          allowedModes: ["coding"],
          timeoutMs: 20_000,
          requireApprovalForDestructive: true,
        },
      ],
    });
    const { client, sessionId } = users[0]!;
    expect(
      (await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(200);
    type Change = { tool: string; hash: string; changed: string[]; pinned: unknown; proposed: unknown };
    const rug = async () =>
      (await admin.json("/api/mcp/servers", { method: "GET" })).body.servers.find(
        (s: { id: string }) => s.id === "rug",
      ) as { pendingChanges: Change[]; tools: Array<{ name: string; requiresApproval: boolean }> };
    try {
      await turn(client, sessionId, "/tool mcp__rug__flip {}");
      let change: Change | undefined;
      for (const deadline = Date.now() + 20_000; !change && Date.now() < deadline;) {
        change = (await rug()).pendingChanges[0];
        if (!change) await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(change).toMatchObject({
        tool: "wipe",
        proposed: { annotations: { readOnlyHint: true } },
        pinned: { annotations: { destructiveHint: true } },
      });
      expect((await rug()).tools.find((t) => t.name === "mcp__rug__wipe")?.requiresApproval).toBe(true);
      // The model calls the tool the server now calls read-only: it still waits for an owner.
      const call = await turn(client, sessionId, '/tool mcp__rug__wipe {"target":"prod"}');
      expect(call.body).toContain("data-approval_pending");
      expect(call.body).not.toContain("wiped prod");
      await client.json(`/api/sessions/${sessionId}/stop`, { method: "POST", body: {} });

      const accept = (who: HttpClient, server: string, body: unknown) =>
        who.json(`/api/mcp/servers/${server}/tools/accept`, { method: "POST", body });
      expect((await accept(client, "rug", { tool: "wipe", hash: change!.hash })).status).toBe(403);
      const malformed = await accept(admin, "rug", { tool: "wipe", hash: "not-a-hash" });
      expect(malformed.status).toBe(422);
      expect(JSON.stringify(malformed.body)).not.toMatch(/\/work|node_modules|at /);
      expect((await accept(admin, "rug", { tool: "wipe", hash: "0".repeat(64) })).status).toBe(409);
      expect((await accept(admin, "nope", { tool: "wipe", hash: change!.hash })).status).toBe(404);
      const ok = await accept(admin, "rug", { tool: "wipe", hash: change!.hash });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.server.pendingChanges).toEqual([]);
      expect((await accept(admin, "rug", { tool: "wipe", hash: change!.hash })).status).toBe(409);
      const rows = await db.auditLog.findMany({
        where: { action: { in: ["mcp.tool_changed", "mcp.tool_change_accepted"] }, toolName: "wipe" },
        orderBy: { seq: "asc" },
      });
      expect(rows.map((r) => r.action).slice(-2)).toEqual(["mcp.tool_changed", "mcp.tool_change_accepted"]);
    } finally {
      await client.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "chat_safe" } });
    }
  });

  it("members cannot see or reconnect MCP servers, nor import", async () => {
    const member = users[0]!.client;
    expect((await member.json("/api/mcp/servers", { method: "GET" })).status).toBe(403);
    expect((await member.json("/api/mcp/servers/crashy/reconnect", { method: "POST" })).status).toBe(403);
    expect(
      (await member.json("/api/policy/import", { method: "POST", body: { format: "openclaw", text: "{}" } })).status,
    ).toBe(403);
  });

  it("POST /api/policy/import maps JSON5 into the saved document and saves nothing", async () => {
    await save({ tools: { deny: ["browser"] }, askRules: ["write"] });
    const before = await admin.json("/api/policy", { method: "GET" });
    const text = `// family bot
      { agents: { entries: { family: { tools: { allow: ['read', 'message'], deny: ['exec',], }, }, }, },
        channels: { whatsapp: { groups: { '120363424282127706@g.us': { tools: { deny: ['exec'] } } } } }, }`;
    const res = await admin.json("/api/policy/import", { method: "POST", body: { format: "openclaw", text } });
    expect(res.status).toBe(200);
    expect(res.body.document).toMatchObject({
      tools: { deny: ["browser"] },
      askRules: ["write"],
      agents: { family: { tools: { allow: ["read", "message"], deny: ["exec"] } } },
      teams: { "whatsapp:120363424282127706@g.us": { deny: ["exec"] } },
    });
    expect(res.body.report.mapped.map((n: { path: string }) => n.path)).toContain("agents.entries.family");
    const after = await admin.json("/api/policy", { method: "GET" });
    expect(after.body.version).toBe(before.body.version);
    // The team id the import produced is one the team API accepts.
    const team = await admin.json("/api/admin/teams", {
      method: "POST",
      body: { id: "whatsapp:120363424282127706@g.us", name: "Family group" },
    });
    expect([200, 201]).toContain(team.status);
  });

  it("import refuses bad input with a 4xx naming the problem", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [{ format: "openclaw", text: "{ tools: { deny: ['exec' }" }, /not valid JSON5/],
      [{ format: "yaml", text: "{}" }, /format/],
      [{ format: "openclaw", text: "" }, /empty/],
      [{ format: "openclaw", text: "{}", base: { tools: { allow: "x" } } }, /draft to import into is invalid/],
      [{ format: "openclaw", text: "{}", extra: 1 }, /extra|Unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await admin.json("/api/policy/import", { method: "POST", body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error.message).toMatch(message);
    }
    const raw = await admin.fetch("/api/policy/import", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(raw.status).toBe(400);
  });
});
