// Issue 30: personal access tokens and the /mcp gateway over real HTTP, against an app of its own per database
// (its policy changes would disturb the shared apps). The official SDK client over Streamable HTTP lists exactly
// the tools the admin matrix shows for the token's context, a denied call never runs, a call that needs an owner
// shows up in the inbox and, made again after the decision, runs once; every outsider attack on tokens fails.
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createDb, type Db } from "@/lib/db/client";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn, signedInWithOwnPassword } from "../support/http-client";
import { setPolicy, until } from "../support/approvals-helpers";
import { ROOT } from "../support/app-server";

// Run from its own build folder: 1.0.3 checks for "../package.json" relative to the working directory but imports it
// relative to the module, so from anywhere else it fails to start.
const INSPECTOR_CLI = path.join(ROOT, "node_modules/@modelcontextprotocol/inspector-cli/build/index.js");

const BASE = "http://gateway.example.test:8443";
const RATE = 40;

describe.each(databaseTargets())("MCP gateway (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;
  let member: HttpClient;
  let owner: HttpClient;
  let admin: HttpClient;
  let memberId: string;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    app = await startApp({
      databaseUrl: target.url,
      env: { PUBLIC_BASE_URL: BASE, MCP_APPROVAL_WAIT_SECONDS: "2", MCP_REQUESTS_PER_MINUTE: String(RATE) },
    });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    admin = await signedIn(app.url, "admin@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await app?.stop();
    await target?.drop?.();
  });

  async function newToken(
    client: HttpClient,
    body: Record<string, unknown> = {},
  ): Promise<{ token: string; id: string }> {
    const res = await client.json("/api/tokens", {
      method: "POST",
      body: { name: `t-${Math.random().toString(36).slice(2, 8)}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return { token: res.body.token, id: res.body.accessToken.id };
  }

  const rpc = (token: string | null, body: string, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...headers,
      },
      body,
    });
  const listTools = (id = 1) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/list", params: {} });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: "vitest-sdk-client", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  }

  it("tokens: the secret is answered once and stored only as a hash; bad input 422; signed out 401", async () => {
    const res = await member.json("/api/tokens", { method: "POST", body: { name: "laptop", expiresInDays: 30 } });
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^tgp_[A-Za-z0-9_-]{43}$/);
    expect(res.body.accessToken).toMatchObject({ name: "laptop", mode: "chat_safe", agentId: null, status: "active" });
    const row = await db.accessToken.findUniqueOrThrow({ where: { id: res.body.accessToken.id } });
    expect(JSON.stringify(row)).not.toContain(res.body.token.slice(4));
    const listed = await member.json("/api/tokens");
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token.slice(4));
    expect(JSON.stringify(listed.body)).not.toContain(row.tokenHash);
    for (const body of [
      {},
      { name: "" },
      { name: "x", expiresInDays: 0 },
      { name: "x", mode: "root" },
      { name: "x", agentId: "../etc" },
      { name: "x", userId: memberId },
    ]) {
      const bad = await member.json("/api/tokens", { method: "POST", body });
      expect(bad.status, JSON.stringify(body)).toBe(422);
    }
    const anonymous = new HttpClient(app.url);
    expect((await anonymous.json("/api/tokens")).status).toBe(401);
    expect((await anonymous.json("/api/tokens", { method: "POST", body: { name: "x" } })).status).toBe(401);
    expect((await anonymous.json(`/api/tokens/${row.id}`, { method: "DELETE" })).status).toBe(401);
  });

  it("tokens: a member neither lists nor revokes another's; an admin lists and revokes everyone's", async () => {
    const owners = await newToken(owner);
    expect((await member.json("/api/tokens?scope=all")).status).toBe(403);
    expect((await member.json("/api/tokens")).body.tokens.map((t: { id: string }) => t.id)).not.toContain(owners.id);
    const refused = await member.json(`/api/tokens/${owners.id}`, { method: "DELETE" });
    expect(refused.status).toBe(404);
    expect((await rpc(owners.token, listTools())).status).toBe(200);
    const all = await admin.json("/api/tokens?scope=all");
    expect(all.body.tokens.find((t: { id: string }) => t.id === owners.id)).toMatchObject({
      user: { email: "owner@example.com" },
    });
    expect((await admin.json(`/api/tokens/${owners.id}`, { method: "DELETE" })).body.accessToken.status).toBe(
      "revoked",
    );
    expect((await rpc(owners.token, listTools())).status).toBe(401);
  });

  it("/mcp: no, malformed, unknown, revoked and expired tokens get 401 with WWW-Authenticate naming the resource metadata", async () => {
    const none = await rpc(null, listTools());
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`,
    );
    expect((await none.json()).error.code).toBeTypeOf("number");
    const { token, id } = await newToken(member);
    const forged = `tgp_${"A".repeat(43)}`;
    for (const bad of ["nope", forged, token.slice(0, -1), `${token}x`]) {
      const res = await rpc(bad, listTools());
      expect(res.status, bad).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    expect((await rpc(token, listTools())).status).toBe(200);
    await db.accessToken.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await rpc(token, listTools())).status).toBe(401);
    const live = await newToken(member);
    expect((await member.json(`/api/tokens/${live.id}`, { method: "DELETE" })).status).toBe(200);
    expect((await rpc(live.token, listTools())).status).toBe(401);
  });

  it("deactivation and a password change revoke every token of the user", async () => {
    const email = `gw-${Date.now().toString(36)}@example.com`;
    const made = await admin.json("/api/admin/users", { method: "POST", body: { email, roles: ["member"] } });
    const user = await signedInWithOwnPassword(app.url, email, made.body.temporaryPassword, "an-own-password-0");
    const first = await newToken(user);
    expect((await rpc(first.token, listTools())).status).toBe(200);
    expect(
      (
        await user.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: "an-own-password-0", newPassword: "a-new-password-1" },
        })
      ).status,
    ).toBe(200);
    expect((await rpc(first.token, listTools())).status).toBe(401);
    const again = await signedIn(app.url, email, "a-new-password-1");
    const second = await newToken(again);
    expect((await rpc(second.token, listTools())).status).toBe(200);
    expect(
      (await admin.json(`/api/admin/users/${made.body.user.id}/active`, { method: "POST", body: { active: false } }))
        .status,
    ).toBe(200);
    expect((await rpc(second.token, listTools())).status).toBe(401);
    await admin.json(`/api/admin/users/${made.body.user.id}/active`, { method: "POST", body: { active: true } });
    expect((await rpc(second.token, listTools())).status).toBe(401);
    expect((await db.accessToken.findUniqueOrThrow({ where: { id: second.id } })).revokedAt).not.toBeNull();
  });

  it("resource metadata comes from PUBLIC_BASE_URL, never the Host header; /mcp and /.well-known are not pages", async () => {
    for (const p of ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]) {
      const res = await fetch(`${app.url}${p}`, {
        headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-security-policy")).toBeNull();
      expect(await res.json()).toMatchObject({ resource: `${BASE}/mcp`, bearer_methods_supported: ["header"] });
    }
    const { token } = await newToken(member);
    // A POST without Origin is not refused as a cross-origin page action; a foreign Origin is (DNS rebinding).
    expect((await rpc(token, listTools())).status).toBe(200);
    expect((await rpc(token, listTools(), { origin: "http://evil.example" })).status).toBe(403);
  });

  it("bad JSON-RPC gets JSON-RPC errors, never a 500", async () => {
    const { token } = await newToken(member);
    const cases: Array<[string, number, number]> = [
      ["{not json", 400, -32700],
      ["[]", 400, -32600],
      [JSON.stringify(Array.from({ length: 11 }, (_, i) => JSON.parse(listTools(i)))), 400, -32600],
      [JSON.stringify({ id: 1, method: "tools/list" }), 400, -32600],
      [
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(1_100_000) } }),
        413,
        -32600,
      ],
    ];
    for (const [body, status, code] of cases) {
      const res = await rpc(token, body);
      expect(res.status, body.slice(0, 40)).toBe(status);
      expect((await res.json()).error.code).toBe(code);
    }
    const unknown = await rpc(token, JSON.stringify({ jsonrpc: "2.0", id: 7, method: "resources/nope", params: {} }));
    expect(unknown.status).toBeLessThan(500);
    expect(await unknown.text()).toContain("-32601");
  });

  it("binding: a token is bound only to an agent its user may use (unknown 422, not usable 403, nothing stored)", async () => {
    await setPolicy(db, {
      agents: {
        "claude-code": { name: "Claude Code", usableBy: { roles: ["member"] } },
        "admins-only": { name: "Admins only" },
        "by-name": { name: "By name", usableBy: { users: ["OWNER@example.com"] } },
      },
    });
    const before = await db.accessToken.count();
    // Names that exist on every object, another spelling of a defined agent, and one the policy never defined.
    for (const agentId of [
      "nope",
      "constructor",
      "toString",
      "hasOwnProperty",
      "Claude-Code",
      "claude-code.",
      "claude-code ",
    ]) {
      const res = await member.json("/api/tokens", { method: "POST", body: { name: "x", agentId } });
      expect(res.status, agentId).toBe(422);
      expect(JSON.stringify(res.body)).toMatch(/agent/);
    }
    for (const agentId of ["admins-only", "by-name"]) {
      const res = await member.json("/api/tokens", { method: "POST", body: { name: "x", agentId } });
      expect(res.status, agentId).toBe(403);
      expect(res.body.error.message).toContain(`you may not use the agent "${agentId}"`);
    }
    expect(await db.accessToken.count()).toBe(before);
    // The same rule lets the people it names bind: members, the named user (any case), and an admin always.
    expect(
      (await member.json("/api/tokens", { method: "POST", body: { name: "cc", agentId: "claude-code" } })).body
        .accessToken,
    ).toMatchObject({ agentId: "claude-code" });
    expect(
      (await owner.json("/api/tokens", { method: "POST", body: { name: "named", agentId: "by-name" } })).status,
    ).toBe(201);
    expect(
      (await admin.json("/api/tokens", { method: "POST", body: { name: "admin", agentId: "admins-only" } })).status,
    ).toBe(201);
  });

  it("the SDK client lists exactly the tools the admin matrix shows for the token's context; a denied call never runs", async () => {
    // The token is bound to an agent the policy defines and lets members use (usableBy); an undefined one gets nothing.
    await setPolicy(db, { agents: { "claude-code": { name: "Claude Code", usableBy: { roles: ["member"] } } } });
    const { token } = await newToken(member, { name: "sdk-list", agentId: "claude-code" });
    const client = await connect(token);
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name).sort();
      const matrix = await admin.json("/api/policy/effective", {
        method: "POST",
        body: {
          context: {
            roles: ["member"],
            provider: "external",
            model: "sdk-list",
            agentId: "claude-code",
            senderId: memberId,
          },
        },
      });
      expect(matrix.status).toBe(200);
      type Row = { name: string; cells: Record<string, { status: string }> };
      const expected = (matrix.body.matrix.groups as Array<{ rows: Row[] }>)
        .flatMap((g) => g.rows)
        .filter((r) => r.cells.chat_safe!.status !== "denied")
        .map((r) => r.name)
        .sort();
      expect(listed).toEqual(expected);
      expect(listed).toContain("current_time");
      expect(listed).not.toContain("write");
      const ok = await client.callTool({ name: "current_time", arguments: {} });
      expect(ok.isError).toBeFalsy();
      const denied = await client.callTool({ name: "write", arguments: { path: "outside.txt", content: "no" } });
      expect(denied.isError).toBe(true);
      expect(JSON.parse((denied.content as Array<{ text: string }>)[0]!.text)).toMatchObject({
        ok: false,
        error_code: expect.stringMatching(/MODE_DENIED|POLICY_DENIED/),
        next_action: expect.any(String),
      });
      expect(fs.existsSync(path.join(app.workspaceRoot, memberId, "outside.txt"))).toBe(false);
    } finally {
      await client.close();
    }
  });

  it("the MCP Inspector CLI lists and calls tools with a member's token", async () => {
    await setPolicy(db, {});
    const { token } = await newToken(member, { name: "inspector" });
    const run = async (...args: string[]) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [INSPECTOR_CLI, `${app.url}/mcp`, "--transport", "http", ...args, "--header", `Authorization: Bearer ${token}`],
        { timeout: 60_000, cwd: path.dirname(INSPECTOR_CLI) },
      ).catch((error: { stderr?: string; stdout?: string }) => {
        throw new Error(`inspector-cli failed: ${error.stderr ?? ""} ${error.stdout ?? ""}`);
      });
      return JSON.parse(stdout);
    };
    const listed = await run("--method", "tools/list");
    expect(listed.tools.map((t: { name: string }) => t.name)).toContain("current_time");
    expect(listed.tools.map((t: { name: string }) => t.name)).not.toContain("write");
    const called = await run("--method", "tools/call", "--tool-name", "current_time");
    expect(called.isError).toBeFalsy();
    expect(JSON.stringify(called.content)).toMatch(/\d{4}-\d{2}-\d{2}/);
    const denied = await run(
      "--method",
      "tools/call",
      "--tool-name",
      "write",
      "--tool-arg",
      "path=x.txt",
      "content=no",
    );
    expect(denied.isError).toBe(true);
  });

  it("an ask call is in the inbox within 1 s with the client's name; the same call made again after approval runs once, even made twice at once", async () => {
    await setPolicy(db, { askRules: ["current_time"] });
    const { token } = await newToken(member, { name: "ci-bot" });
    const client = await connect(token);
    try {
      const started = Date.now();
      const first = client.callTool({ name: "current_time", arguments: { timezone: "UTC" } });
      const approval = await until(
        "the approval in the inbox",
        async () =>
          (
            (await owner.json("/api/approvals?status=pending")).body.approvals as
              Array<{ id: string; toolName: string; args: unknown; client: string | null }> | undefined
          )?.find((a) => a.toolName === "current_time"),
        10_000,
        50,
      );
      expect(Date.now() - started).toBeLessThan(1_000 + 500);
      expect(approval).toMatchObject({ client: "ci-bot", requester: { id: memberId }, args: { timezone: "UTC" } });
      const answered = await first;
      expect(answered.isError).toBe(true);
      const pending = JSON.parse((answered.content as Array<{ text: string }>)[0]!.text);
      expect(pending).toMatchObject({ error_code: "APPROVAL_PENDING", approval_id: approval.id });
      expect(pending.message).toContain(approval.id);
      const decided = await owner.json(`/api/approvals/${approval.id}/decision`, {
        method: "POST",
        body: { decision: "allow-once" },
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      const both = await Promise.all(
        [0, 1].map(() => client.callTool({ name: "current_time", arguments: { timezone: "UTC" } })),
      );
      expect(both.filter((r) => !r.isError)).toHaveLength(1);
      const ran = await db.auditLog.findMany({
        where: {
          action: "tool.call",
          decision: "allow",
          toolName: "current_time",
          actorId: memberId,
          at: { gte: new Date(started) },
        },
      });
      expect(ran).toHaveLength(1);
      const verified = await admin.json("/api/audit/verify", { method: "POST" });
      expect(verified.body).toMatchObject({ ok: true });
    } finally {
      await client.close();
      await setPolicy(db, {});
    }
  });

  it("per-token rate limit: past the limit 429, another token is not affected", async () => {
    const spent = await newToken(member);
    const other = await newToken(member);
    const statuses: number[] = [];
    for (let i = 0; i < RATE + 2; i++) statuses.push((await rpc(spent.token, listTools())).status);
    expect(statuses.slice(0, RATE).every((s) => s === 200)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
    expect((await rpc(other.token, listTools())).status).toBe(200);
  });
});
