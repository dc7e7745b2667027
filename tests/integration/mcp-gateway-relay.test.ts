// Issue 30: an upstream server's progress and log messages about a call reach the outside client that made it, on
// that POST's own response stream, and no one else; bounded, so a flooding upstream cannot flood a client. The
// official SDK client (onprogress, a logging notification handler) over real HTTP against the built app, fronting
// the fixture server over Streamable HTTP with event-stream answers (tests/fixtures/mcp-server.mjs, MCP_FIXTURE_NOTIFY).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  LoggingMessageNotificationSchema,
  type LoggingMessageNotification,
  type Progress,
} from "@modelcontextprotocol/sdk/types.js";
import { createDb, type Db } from "@/lib/db/client";
import {
  LOG_BURST,
  LOG_MAX,
  LOG_PER_SECOND,
  PROGRESS_BURST,
  PROGRESS_PER_SECOND,
} from "@/lib/gateway/notification-relay";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { setPolicy, until } from "../support/approvals-helpers";
import { startHttpFixture, stdioFixtureTransport, type HttpFixture } from "../support/mcp-fixture";

type Log = LoggingMessageNotification["params"];
type Connected = { client: Client; logs: Log[] };

describe.each(databaseTargets())("MCP gateway: upstream notifications relayed (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;
  let member: HttpClient;
  let owner: HttpClient;
  let upstream: HttpFixture;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    upstream = await startHttpFixture({ MCP_FIXTURE_NOTIFY: "1" });
    app = await startApp({ databaseUrl: target.url, env: { MCP_APPROVAL_WAIT_SECONDS: "20" } });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    const transport = { type: "http", url: upstream.url };
    await setPolicy(db, {
      system: { mcp: { enabled: true, allowedServers: ["relay", "gated", "local"] } },
      mcpServers: [
        { id: "relay", transport, allowedModes: ["chat_safe"], timeoutMs: 20_000 },
        // The same server, with every call of steps waiting for an owner.
        {
          id: "gated",
          transport,
          allowedModes: ["chat_safe"],
          timeoutMs: 20_000,
          tools: { steps: { requireApproval: true } },
        },
        // Over stdio: one pipe for every caller.
        {
          id: "local",
          transport: { ...stdioFixtureTransport(), env: { MCP_FIXTURE_NOTIFY: "1" } },
          allowedModes: ["chat_safe"],
          timeoutMs: 20_000,
        },
      ],
    });
    const { client } = await connect(member);
    await until(
      "the upstream's tools",
      async () => {
        const names = (await client.listTools()).tools.map((t) => t.name);
        return ["relay", "gated", "local"].every((server) => names.includes(`mcp__${server}__steps`));
      },
      30_000,
      200,
    );
    await client.close();
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await app?.stop();
    await upstream?.stop();
    await target?.drop?.();
  });

  async function connect(who: HttpClient): Promise<Connected> {
    const made = await who.json("/api/tokens", {
      method: "POST",
      body: { name: `relay-${Math.random().toString(36).slice(2, 8)}` },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const client = new Client({ name: "vitest-sdk-client", version: "1.0.0" });
    const logs: Log[] = [];
    client.setNotificationHandler(
      LoggingMessageNotificationSchema,
      (notification) => void logs.push(notification.params),
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${made.body.token}` } },
      }),
    );
    return { client, logs };
  }

  async function steps(connected: Connected, marker: string, count: number, server = "relay") {
    const progress: Progress[] = [];
    const result = await connected.client.callTool(
      { name: `mcp__${server}__steps`, arguments: { marker, count, delayMs: 150 } },
      undefined,
      { onprogress: (p) => void progress.push(p), timeout: 60_000 },
    );
    return { result, progress };
  }

  const text = (result: object) =>
    (((result as { content?: Array<{ text?: string }> }).content ?? [])[0]?.text ?? "") as string;

  it("a call's progress arrives in order under the client's own token, and its log messages, named after the server, before the answer", async () => {
    const a = await connect(member);
    try {
      const { result, progress } = await steps(a, "alpha", 5);
      expect(text(result)).toBe("alpha done");
      expect(progress).toEqual([1, 2, 3, 4, 5].map((n) => ({ progress: n, total: 5, message: `alpha step ${n}` })));
      expect(a.logs).toEqual(
        [1, 2, 3, 4, 5].map((step) => ({
          level: step === 1 ? "debug" : "info",
          logger: "relay/steps",
          data: { marker: "alpha", step },
        })),
      );
      // Nothing arrives after the answer (the POST's stream is closed with it).
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(a.logs).toHaveLength(5);
    } finally {
      await a.client.close();
    }
  });

  it("prompts/get relays the upstream's notifications about it as a call does", async () => {
    const a = await connect(member);
    try {
      const progress: Progress[] = [];
      const got = await a.client.getPrompt(
        { name: "mcp__relay__noisy_prompt", arguments: { marker: "asked" } },
        { onprogress: (p) => void progress.push(p) },
      );
      expect(got.messages[0]?.content).toEqual({ type: "text", text: "asked prompt" });
      expect(progress).toEqual([{ progress: 1, total: 1, message: "asked prompt" }]);
      expect(a.logs).toEqual([{ level: "info", logger: "relay", data: { marker: "asked" } }]);
    } finally {
      await a.client.close();
    }
  });

  it("two clients calling at once each get only their own call's notifications", async () => {
    const [a, b] = [await connect(member), await connect(owner)];
    try {
      const [ra, rb] = await Promise.all([steps(a, "mine", 8), steps(b, "theirs", 8)]);
      expect(text(ra.result)).toBe("mine done");
      expect(text(rb.result)).toBe("theirs done");
      expect(ra.progress.map((p) => p.message)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `mine step ${n}`));
      expect(rb.progress.map((p) => p.message)).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => `theirs step ${n}`));
      expect(a.logs.map((l) => (l.data as { marker: string }).marker)).toEqual(Array(8).fill("mine"));
      expect(b.logs.map((l) => (l.data as { marker: string }).marker)).toEqual(Array(8).fill("theirs"));
    } finally {
      await Promise.all([a.client.close(), b.client.close()]);
    }
  });

  it("a stdio server: its progress is relayed (it names its request), its log messages are not (they name none, and one pipe serves every caller)", async () => {
    const a = await connect(member);
    try {
      const { result, progress } = await steps(a, "piped", 3, "local");
      expect(text(result)).toBe("piped done");
      expect(progress.map((p) => p.message)).toEqual(["piped step 1", "piped step 2", "piped step 3"]);
      expect(a.logs).toEqual([]);
    } finally {
      await a.client.close();
    }
  });

  it("a flooding upstream is capped: a bounded number of log messages, oversized and too-deep data replaced, progress coalesced and increasing, the last value kept", async () => {
    const a = await connect(member);
    try {
      const progress: Progress[] = [];
      const started = Date.now();
      const result = await a.client.callTool(
        { name: "mcp__relay__flood_notifications", arguments: { count: 5000 } },
        undefined,
        { onprogress: (p) => void progress.push(p), timeout: 60_000 },
      );
      // The relay's rates bound what passes over the call's whole duration (however slow the machine), plus the one
      // warning and the one held-back progress.
      const seconds = (Date.now() - started) / 1000;
      expect(text(result)).toBe("sent 5000");
      // 10,002 log messages and 5,000 progress notifications sent.
      expect(a.logs.length).toBeGreaterThan(2);
      expect(a.logs.length).toBeLessThanOrEqual(Math.min(LOG_MAX, LOG_BURST + LOG_PER_SECOND * seconds) + 1);
      const big = a.logs[0]!;
      expect(typeof big.data).toBe("string");
      expect(big.data as string).toContain("log data cut by Toolgate");
      expect(Buffer.byteLength(big.data as string)).toBeLessThan(4096 + 200);
      expect(a.logs[1]!.data).toMatch(/nested deeper than 64 levels/);
      expect(a.logs.at(-1)).toMatchObject({
        level: "warning",
        logger: "toolgate",
        data: expect.stringMatching(/^Toolgate dropped \d+ log messages of MCP server relay/),
      });
      expect(progress.length).toBeGreaterThan(0);
      expect(progress.length).toBeLessThanOrEqual(PROGRESS_BURST + PROGRESS_PER_SECOND * seconds + 1);
      expect(progress.length).toBeLessThan(5000);
      for (let i = 1; i < progress.length; i++)
        expect(progress[i]!.progress).toBeGreaterThan(progress[i - 1]!.progress);
      expect(progress.at(-1)).toMatchObject({ progress: 5000, total: 5000 });
    } finally {
      await a.client.close();
    }
  });

  it("a denied call reaches no upstream and relays nothing", async () => {
    const a = await connect(member);
    try {
      const progress: Progress[] = [];
      const call = a.client.callTool(
        { name: "mcp__gated__steps", arguments: { marker: "denied", count: 3, delayMs: 10 } },
        undefined,
        { onprogress: (p) => void progress.push(p), timeout: 60_000 },
      );
      const approval = await until(
        "the approval in the inbox",
        async () =>
          (
            (await owner.json("/api/approvals?status=pending")).body.approvals as
              Array<{ id: string; toolName: string }> | undefined
          )?.find((x) => x.toolName === "mcp__gated__steps"),
        15_000,
        50,
      );
      const decided = await owner.json(`/api/approvals/${approval.id}/decision`, {
        method: "POST",
        body: { decision: "deny" },
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      const result = await call;
      expect(result.isError).toBe(true);
      expect(text(result)).toContain("APPROVAL_DENIED");
      expect(a.logs).toEqual([]);
      // Only the gateway's own "waiting" ticks may have gone out (one every 5 s), never the upstream's steps.
      expect(progress.filter((p) => p.message !== "waiting for an owner's approval")).toEqual([]);
    } finally {
      await a.client.close();
    }
  });

  it("approved after a wait: the gateway's own progress comes first, the upstream's follows it, still increasing", async () => {
    const a = await connect(member);
    try {
      const progress: Progress[] = [];
      const call = a.client.callTool(
        { name: "mcp__gated__steps", arguments: { marker: "later", count: 3, delayMs: 150 } },
        undefined,
        { onprogress: (p) => void progress.push(p), timeout: 60_000 },
      );
      const approval = await until(
        "the approval in the inbox",
        async () =>
          (
            (await owner.json("/api/approvals?status=pending")).body.approvals as
              Array<{ id: string; toolName: string }> | undefined
          )?.find((x) => x.toolName === "mcp__gated__steps"),
        15_000,
        50,
      );
      await until("a waiting tick", async () => progress.length > 0, 15_000, 100);
      const decided = await owner.json(`/api/approvals/${approval.id}/decision`, {
        method: "POST",
        body: { decision: "allow-once" },
      });
      expect(decided.status, JSON.stringify(decided.body)).toBe(200);
      const result = await call;
      expect(text(result)).toBe("later done");
      const ticks = progress.filter((p) => p.message === "waiting for an owner's approval").length;
      expect(ticks).toBeGreaterThan(0);
      expect(progress.map((p) => p.progress)).toEqual([
        ...Array.from({ length: ticks }, (_, i) => i + 1),
        ticks + 1,
        ticks + 2,
        ticks + 3,
      ]);
      expect(progress.slice(ticks).map((p) => [p.message, p.total])).toEqual(
        [1, 2, 3].map((n) => [`later step ${n}`, ticks + 3]),
      );
      expect(a.logs.map((l) => (l.data as { marker: string }).marker)).toEqual(["later", "later", "later"]);
    } finally {
      await a.client.close();
    }
  });
});
