// Issue 32, the anthropic provider over real HTTP: the built app, configured with MODELS=anthropic:… and
// ANTHROPIC_BASE_URL pointing at a local server that speaks Anthropic's Messages API stream (tests/support/
// fake-anthropic-server.ts). A plain answer streams to the client and is stored; a tool_use goes through the policy
// gates like any other call (an allowed tool runs and its result goes back as a tool_result block; a denied one never
// runs and the model gets the structured denial); the API key travels only in the x-api-key header and is never
// written to the transcript, the audit log or the app's output.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { chat, transcript } from "../support/approvals-helpers";
import {
  lastUserText,
  startFakeAnthropicServer,
  toolResults,
  type FakeAnthropicServer,
} from "../support/fake-anthropic-server";

const API_KEY = "sk-ant-fake-4f1c9d2e7b-never-logged";
const MODEL = "anthropic:claude-fake-1";

describe.each(databaseTargets())("anthropic model over HTTP (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let fake: FakeAnthropicServer;
  let db: Db;
  let member: HttpClient;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    fake = await startFakeAnthropicServer({
      apiKey: API_KEY,
      fragmentSize: 4,
      respond: (request) => {
        const results = toolResults(request);
        if (results.length > 0) return { text: results[0]!.is_error ? "The tool failed." : "Done with the tool." };
        const said = lastUserText(request);
        if (said.includes("what time"))
          return {
            text: "Let me check.",
            toolUse: { id: "toolu_time_1", name: "current_time", input: { timezone: "Europe/Paris" } },
          };
        if (said.includes("read the readme"))
          return { toolUse: { id: "toolu_read_1", name: "read", input: { path: "README.md" } } };
        return { text: "Hello from the fake Claude." };
      },
    });
    app = await startApp({
      databaseUrl: target.url,
      env: { MODELS: MODEL, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: fake.baseUrl },
    });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await app?.stop();
    await fake?.close();
    await target?.drop?.();
  });

  async function newChat(): Promise<string> {
    const res = await member.json("/api/sessions", { method: "POST", body: {} });
    expect(res.status).toBe(201);
    expect(res.body.model).toBe(MODEL);
    return res.body.id as string;
  }

  /** The requests the fake server received from the turn that starts now. */
  async function turn(sessionId: string, text: string) {
    const seen = fake.requests.length;
    const chunks = await chat(member, sessionId, text);
    return { chunks, requests: fake.requests.slice(seen) };
  }

  it("a plain answer streams to the client in pieces and is stored; the request is in Anthropic's shape", async () => {
    const id = await newChat();
    const { chunks, requests } = await turn(id, "hello there");
    const deltas = chunks.filter((c) => c.type === "text-delta").map((c) => c.delta as string);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe("Hello from the fake Claude.");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({ method: "POST", path: "/v1/messages" });
    expect(requests[0]!.body).toMatchObject({ model: "claude-fake-1", stream: true, max_tokens: expect.any(Number) });
    expect(lastUserText(requests[0]!)).toBe("hello there");
    // The system prompt travels in Anthropic's top-level `system`, not as a message.
    expect(requests[0]!.body.system).toBeTruthy();
    expect(requests[0]!.body.messages.every((m: { role: string }) => m.role === "user" || m.role === "assistant")).toBe(
      true,
    );
    const rows = await transcript(member, id);
    expect(rows.map((r) => [r.role, r.content])).toEqual([
      ["user", "hello there"],
      ["assistant", "Hello from the fake Claude."],
    ]);
  });

  it("an allowed tool_use is assembled from input_json_delta pieces, gated, run, and its result sent back as a tool_result", async () => {
    const id = await newChat();
    const { chunks, requests } = await turn(id, "what time is it");
    expect(requests).toHaveLength(2);
    // The tools are offered in Anthropic's shape, and only those the chat's mode allows.
    const offered = (requests[0]!.body.tools as Array<{ name: string; input_schema: unknown }>).map((t) => t.name);
    expect(offered).toContain("current_time");
    expect(offered).not.toContain("read");
    expect(requests[0]!.body.tools[0].input_schema).toMatchObject({ type: "object" });
    // The second request replays the assistant's tool_use and answers it with a tool_result carrying the output.
    const messages = requests[1]!.body.messages as Array<{ role: string; content: Array<Record<string, unknown>> }>;
    const assistant = messages.at(-2)!;
    expect(assistant.role).toBe("assistant");
    expect(assistant.content).toContainEqual(
      expect.objectContaining({
        type: "tool_use",
        id: "toolu_time_1",
        name: "current_time",
        input: { timezone: "Europe/Paris" },
      }),
    );
    const [result] = toolResults(requests[1]!);
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_time_1" });
    expect(result!.is_error).toBeUndefined();
    expect(JSON.parse(String(result!.content))).toMatchObject({ timezone: "Europe/Paris" });
    expect(chunks.filter((c) => c.type === "tool-output-available")).toHaveLength(1);
    const rows = await transcript(member, id);
    expect(rows.find((r) => r.role === "tool")).toMatchObject({
      toolCallId: "toolu_time_1",
      toolName: "current_time",
      parts: { status: "ok", output: { timezone: "Europe/Paris" } },
    });
    expect(rows.at(-1)).toMatchObject({ role: "assistant", content: "Done with the tool." });
    const audit = await db.auditLog.findFirst({ where: { sessionId: id, callId: "toolu_time_1" } });
    expect(audit).toMatchObject({ decision: "allow", layer: "allowed" });
  });

  it("a denied tool_use never runs; the model gets the structured denial as the tool_result", async () => {
    const id = await newChat();
    const { chunks, requests } = await turn(id, "read the readme");
    expect(chunks.find((c) => c.type === "data-tool_denied")).toMatchObject({
      data: { callId: "toolu_read_1", errorCode: "MODE_DENIED" },
    });
    expect(
      chunks.filter(
        (c) => c.type === "tool-output-available" && c.toolCallId === "toolu_read_1" && c.output?.ok !== false,
      ),
    ).toHaveLength(0);
    expect(requests).toHaveLength(2);
    const [result] = toolResults(requests[1]!);
    expect(result).toMatchObject({ type: "tool_result", tool_use_id: "toolu_read_1" });
    expect(JSON.parse(String(result!.content))).toEqual({
      ok: false,
      error_code: "MODE_DENIED",
      tool_name: "read",
      mode: "chat_safe",
      message: expect.any(String),
      next_action: expect.any(String),
    });
    const audit = await db.auditLog.findFirst({ where: { sessionId: id, callId: "toolu_read_1" } });
    expect(audit).toMatchObject({ decision: "deny" });
    const rows = await transcript(member, id);
    expect(rows.find((r) => r.role === "tool" && r.toolCallId === "toolu_read_1")?.parts?.status).not.toBe("ok");
  });

  it("the API key reaches the server only in x-api-key, and appears in no transcript, audit row or log line", async () => {
    expect(fake.requests.length).toBeGreaterThan(0);
    for (const request of fake.requests) {
      expect(request.headers["x-api-key"]).toBe(API_KEY);
      const elsewhere = { ...request.headers, "x-api-key": undefined };
      expect(JSON.stringify(elsewhere)).not.toContain(API_KEY);
      expect(request.headers.authorization).toBeUndefined();
      expect(request.path).not.toContain(API_KEY);
      expect(JSON.stringify(request.body)).not.toContain(API_KEY);
    }
    const sessions = (await member.json("/api/sessions")).body;
    expect(JSON.stringify(sessions)).not.toContain(API_KEY);
    for (const s of await db.chatSession.findMany())
      expect(JSON.stringify(await transcript(member, s.id).catch(() => []))).not.toContain(API_KEY);
    // Every table a turn writes: messages, runs, tool calls, the audit log and the replayable event log.
    for (const rows of [
      await db.message.findMany(),
      await db.agentRun.findMany(),
      await db.toolCall.findMany(),
      await db.auditLog.findMany(),
      await db.eventLog.findMany(),
    ]) {
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(API_KEY);
    }
    expect(app.logs.join("")).not.toContain(API_KEY);
  });

  it("a wrong key is refused by the server and the turn fails without echoing either key", async () => {
    const other = await startApp({
      databaseUrl: target.url,
      env: { MODELS: MODEL, ANTHROPIC_API_KEY: "sk-ant-wrong-key-0000", ANTHROPIC_BASE_URL: fake.baseUrl },
    });
    try {
      const there = await signedIn(other.url, "member@example.com");
      const id = (await there.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
      const seen = fake.requests.length;
      const chunks = await chat(there, id, "hello there");
      expect(fake.requests.length).toBeGreaterThan(seen);
      expect(fake.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-wrong-key-0000");
      // The member is told the provider refused the server's credentials (no key, no provider text), and no
      // assistant answer is stored.
      const error = chunks.find((c) => c.type === "error");
      expect(error).toMatchObject({ errorText: expect.stringContaining("The turn failed") });
      expect(error!.errorText).toContain("the model provider (anthropic) refused this server's credentials");
      expect(error!.errorText).not.toContain("invalid x-api-key");
      expect(error!.errorText).not.toContain("authentication_error");
      expect(chunks.at(-1)).toMatchObject({ type: "finish", finishReason: "error" });
      const rows = await transcript(there, id);
      expect(rows.map((r) => r.role)).toEqual(["user"]);
      // The run's stored error says the same.
      expect((await db.agentRun.findFirst({ where: { sessionId: id } }))?.error).toContain(
        "refused this server's credentials",
      );
      // Admins are told: an audit row naming the provider, model and status, and the admin home page lists it.
      const audited = await db.auditLog.findMany({ where: { action: "model.credentials_refused", sessionId: id } });
      expect(audited).toHaveLength(1);
      expect(audited[0]).toMatchObject({
        decision: "failed",
        details: { provider: "anthropic", model: "claude-fake-1", status: 401 },
      });
      const admin = await signedIn(other.url, "admin@example.com");
      const home = await admin.fetch("/admin");
      expect(home.status).toBe(200);
      const html = await home.text();
      expect(html).toContain("A model provider refuses this server");
      expect(html).toMatch(/anthropic(<!-- -->)?:(<!-- -->)?claude-fake-1/);
      // A member never sees that page.
      expect(new URL((await there.fetch("/admin")).headers.get("location")!, other.url).pathname).toBe("/chat");
      const shown =
        JSON.stringify(chunks) + JSON.stringify(rows) + JSON.stringify(audited) + html + other.logs.join("");
      expect(shown).not.toContain("sk-ant-wrong-key-0000");
      expect(shown).not.toContain(API_KEY);
    } finally {
      await other.stop();
    }
  }, 120_000);
});
