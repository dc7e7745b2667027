// Issue 30: resources and prompts of upstream MCP servers through /mcp, under the same server gates as their tools.
// The official reference server (server-everything, streamable HTTP) is configured twice: as "everything", usable
// in chat_safe, and as "coding-only", usable in coding alone. The official SDK client, with a member's token, sees
// exactly what server-everything offers (compared with a direct connection), namespaced; a token whose context may
// not use a server sees none of its resources or prompts, and reads naming it are JSON-RPC errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { createDb, type Db } from "@/lib/db/client";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { setPolicy, until } from "../support/approvals-helpers";
import { startEverythingHttp, type EverythingHttp } from "../support/reference-servers";

const prefixed = (server: string, uri: string) => `toolgate://${server}/${uri}`;

describe.each(databaseTargets())("MCP gateway: upstream resources and prompts (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;
  let member: HttpClient;
  let admin: HttpClient;
  let everything: EverythingHttp;
  let direct: Client;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    everything = await startEverythingHttp();
    app = await startApp({ databaseUrl: target.url });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
    admin = await signedIn(app.url, "admin@example.com");
    const transport = { type: "http", url: everything.url };
    await setPolicy(db, {
      system: { mcp: { enabled: true, allowedServers: ["everything", "coding-only"] } },
      agents: {
        "no-everything": {
          name: "Without everything",
          usableBy: { roles: ["member"] },
          system: { mcp: { allowedServers: ["coding-only"] } },
        },
      },
      mcpServers: [
        { id: "everything", transport, allowedModes: ["chat_safe"], timeoutMs: 8000 },
        { id: "coding-only", transport, allowedModes: ["coding"], timeoutMs: 8000 },
      ],
    });
    direct = new Client({ name: "direct", version: "1.0.0" });
    await direct.connect(new StreamableHTTPClientTransport(new URL(everything.url)));
  }, 180_000);

  afterAll(async () => {
    await direct?.close();
    await db?.$disconnect();
    await app?.stop();
    await everything?.stop();
    await target?.drop?.();
  });

  async function connect(body: Record<string, unknown> = {}): Promise<Client> {
    const res = await member.json("/api/tokens", {
      method: "POST",
      body: { name: `up-${Math.random().toString(36).slice(2, 8)}`, ...body },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const client = new Client({ name: "vitest-sdk-client", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${res.body.token}` } },
      }),
    );
    return client;
  }

  async function refused(work: Promise<unknown>): Promise<McpError> {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpError);
    return error as McpError;
  }

  it("a member's chat_safe token lists the usable server's resources, templates and prompts, namespaced, and nothing of the coding-only one", async () => {
    const client = await connect();
    try {
      // The supervisor discovers in the background: wait until the server is ready for this app.
      const resources = await until(
        "resources listed",
        async () => {
          const listed = (await client.listResources()).resources;
          return listed.length > 0 ? listed : undefined;
        },
        20_000,
        200,
      );
      const expected = (await direct.listResources()).resources.map((r) => ({
        ...r,
        name: `mcp__everything__${r.name}`,
        uri: prefixed("everything", r.uri),
      }));
      expect(resources).toEqual(expected);
      expect(JSON.stringify(resources)).not.toContain("coding-only");
      const templates = (await client.listResourceTemplates()).resourceTemplates;
      expect(templates).toEqual(
        (await direct.listResourceTemplates()).resourceTemplates.map((t) => ({
          ...t,
          name: `mcp__everything__${t.name}`,
          uriTemplate: prefixed("everything", t.uriTemplate),
        })),
      );
      const prompts = (await client.listPrompts()).prompts;
      expect(prompts).toEqual(
        (await direct.listPrompts()).prompts.map((p) => ({ ...p, name: `mcp__everything__${p.name}` })),
      );
      expect(prompts.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("reads and prompts pass through faithfully; links in tool results and prompts are readable under the gateway's URIs", async () => {
    const client = await connect();
    try {
      await until("server ready", async () => (await client.listResources()).resources.length > 0, 20_000, 200);
      const [first] = (await direct.listResources()).resources;
      const read = await client.readResource({ uri: prefixed("everything", first!.uri) });
      const straight = await direct.readResource({ uri: first!.uri });
      expect(read.contents).toEqual(straight.contents.map((c) => ({ ...c, uri: prefixed("everything", c.uri) })));
      // A templated URI, expanded by the client as the template says.
      const templated = await client.readResource({ uri: prefixed("everything", "demo://resource/dynamic/text/7") });
      expect(templated.contents[0]).toMatchObject({
        uri: prefixed("everything", "demo://resource/dynamic/text/7"),
        text: expect.stringContaining("7"),
      });
      const prompt = await client.getPrompt({ name: "mcp__everything__args-prompt", arguments: { city: "Lyon" } });
      expect(prompt.messages).toEqual(
        (await direct.getPrompt({ name: "args-prompt", arguments: { city: "Lyon" } })).messages,
      );
      const withResource = await client.getPrompt({
        name: "mcp__everything__resource-prompt",
        arguments: { resourceType: "Text", resourceId: "3" },
      });
      const embedded = withResource.messages.map((m) => m.content).find((c) => c.type === "resource");
      expect(embedded).toMatchObject({ resource: { uri: prefixed("everything", "demo://resource/dynamic/text/3") } });
      await expect(
        client.readResource({ uri: (embedded as { resource: { uri: string } }).resource.uri }),
      ).resolves.toBeTruthy();
      const links = await client.callTool({ name: "mcp__everything__get-resource-links", arguments: { count: 2 } });
      expect(links.isError).toBeFalsy();
      const link = (links.content as Array<{ type: string; uri?: string }>).find((c) => c.type === "resource_link");
      expect(link?.uri).toMatch(/^toolgate:\/\/everything\/demo:\/\//);
      expect((await client.readResource({ uri: link!.uri! })).contents.length).toBeGreaterThan(0);
    } finally {
      await client.close();
    }
  });

  it("the admin's MCP view lists the clients that used /mcp, whose they are, last seen and their latest calls; only for admins", async () => {
    const started = Date.now();
    const client = await connect({ name: "admin-view" });
    try {
      await until("server ready", async () => (await client.listResources()).resources.length > 0, 20_000, 200);
      expect(
        (await client.callTool({ name: "mcp__everything__echo", arguments: { message: "hi" } })).isError,
      ).toBeFalsy();
    } finally {
      await client.close();
    }
    const res = await admin.json("/api/mcp/clients");
    expect(res.status).toBe(200);
    const seen = (res.body.clients as Array<Record<string, unknown>>).find((c) => c.name === "admin-view");
    expect(seen).toMatchObject({
      kind: "token",
      status: "active",
      mode: "chat_safe",
      agentId: null,
      user: { email: "member@example.com" },
      recentCalls: [{ toolName: "mcp__everything__echo", status: "done" }],
    });
    expect(Date.parse(seen!.lastSeenAt as string)).toBeGreaterThanOrEqual(started - 1000);
    expect(JSON.stringify(res.body)).not.toMatch(/tgp_[A-Za-z0-9_-]{20}/);
    // Revoked shows as revoked; the member and an anonymous caller get nothing.
    const tokenId = (await db.accessToken.findFirstOrThrow({ where: { name: "admin-view" } })).id;
    expect((await member.json(`/api/tokens/${tokenId}`, { method: "DELETE" })).status).toBe(200);
    expect(
      ((await admin.json("/api/mcp/clients")).body.clients as Array<{ name: string; status: string }>).find(
        (c) => c.name === "admin-view",
      )?.status,
    ).toBe("revoked");
    expect((await member.json("/api/mcp/clients")).status).toBe(403);
    expect((await new HttpClient(app.url).json("/api/mcp/clients")).status).toBe(401);
  });

  it("a context that may not use a server sees none of it, and reads or gets naming it are JSON-RPC errors", async () => {
    // Chat_safe token (coding-only needs coding) and an agent whose allow-list drops everything: neither server.
    const client = await connect({ agentId: "no-everything" });
    const member_ = await connect();
    try {
      await until("server ready", async () => (await member_.listResources()).resources.length > 0, 20_000, 200);
      expect((await client.listResources()).resources).toEqual([]);
      expect((await client.listResourceTemplates()).resourceTemplates).toEqual([]);
      expect((await client.listPrompts()).prompts).toEqual([]);
      const [first] = (await direct.listResources()).resources;
      for (const uri of [
        prefixed("everything", first!.uri),
        prefixed("coding-only", first!.uri),
        first!.uri,
        "toolgate://everything",
        "toolgate://nope/demo://x",
        "toolgate:///demo://x",
      ]) {
        const error = await refused(client.readResource({ uri }));
        expect(error.message, uri).toMatch(/unknown resource/);
      }
      for (const name of [
        "mcp__everything__simple-prompt",
        "mcp__coding-only__simple-prompt",
        "simple-prompt",
        "mcp__everything__",
        "mcp____simple-prompt",
      ]) {
        const error = await refused(client.getPrompt({ name }));
        expect(error.message, name).toMatch(/unknown prompt/);
      }
      // The member's own chat_safe token is not let through to the coding-only server either.
      await refused(member_.readResource({ uri: prefixed("coding-only", first!.uri) }));
      await refused(member_.getPrompt({ name: "mcp__coding-only__simple-prompt" }));
      // An upstream error (no such prompt upstream) is a JSON-RPC error too, not a 500.
      await refused(member_.getPrompt({ name: "mcp__everything__no-such-prompt" }));
    } finally {
      await client.close();
      await member_.close();
    }
  });
});
