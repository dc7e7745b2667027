// The OpenAI-compatible provider through the whole loop: a local server streams a tool call in fragments in
// the chat-completions wire format; the call goes through the execution gate like any other. An allowed
// call runs; a denied one is answered with the structured denial, which the server sees in the next request.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../support/fake-openai-server";
import { dbTargets, loadAgent, type Agent } from "../support/agent-harness";

describe.each(dbTargets())("openai-compatible model through the loop (%s)", (_kind, make) => {
  let agent: Agent;
  let drop: (() => Promise<void>) | undefined;
  let member: Awaited<ReturnType<Agent["user"]>>;
  let createLanguageModel: typeof import("@/lib/runs/model-provider").createLanguageModel;
  const servers: FakeOpenAIServer[] = [];

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    agent = await loadAgent(target.url);
    member = await agent.user("member@example.com");
    createLanguageModel = (await import("@/lib/runs/model-provider")).createLanguageModel;
  });

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await agent?.db.$disconnect();
    vi.resetModules();
    await drop?.();
  });

  async function server(name: string, args: string, finalText: string) {
    const s = await startFakeOpenAIServer({
      toolCall: { name, arguments: args, id: `call_${name}` },
      finalText,
      fragmentSize: 3,
    });
    servers.push(s);
    return {
      server: s,
      model: createLanguageModel({ provider: "openai-compatible", baseUrl: s.baseUrl, model: "fake-model" }),
    };
  }

  it("an allowed tool call streamed in fragments is assembled, gated, run, and its result sent back", async () => {
    const { server: fake, model } = await server("current_time", '{"timezone":"Europe/Paris"}', "It is time.");
    const s = await agent.session(member.id);
    const { result, transcript, chunks } = await agent.turn({
      sessionId: s.id,
      user: member,
      text: "what time is it",
      model,
      provider: "openai-compatible",
    });
    expect(result.status).toBe("completed");
    const tool = transcript.find((m) => m.role === "tool");
    expect(tool).toMatchObject({
      toolCallId: "call_current_time",
      toolName: "current_time",
      parts: { status: "ok", output: { timezone: "Europe/Paris" } },
    });
    expect(transcript.at(-1)).toMatchObject({ role: "assistant", content: "It is time." });
    expect(chunks.filter((c) => c.type === "tool-output-available")).toHaveLength(1);
    // The first request offered only the chat_safe tools; the second carried the tool result.
    const offered = (fake.requests[0]!.body.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);
    expect(offered).toContain("current_time");
    expect(offered).not.toContain("read");
    const sentBack = fake.requests[1]!.body.messages.at(-1);
    expect(sentBack).toMatchObject({ role: "tool", tool_call_id: "call_current_time" });
    expect(JSON.parse(sentBack.content)).toMatchObject({ timezone: "Europe/Paris" });
    const audit = await agent.db.auditLog.findFirst({ where: { sessionId: s.id, callId: "call_current_time" } });
    expect(audit).toMatchObject({ decision: "allow", layer: "allowed" });
  });

  it("a denied tool gets the structured denial in the next request body", async () => {
    const { server: fake, model } = await server("read", '{"path":"README.md"}', "I could not read it.");
    const s = await agent.session(member.id);
    const { transcript, chunks } = await agent.turn({
      sessionId: s.id,
      user: member,
      text: "read the readme",
      model,
      provider: "openai-compatible",
    });
    expect(chunks.find((c) => c.type === "data-tool_denied")).toMatchObject({
      data: { callId: "call_read", errorCode: "MODE_DENIED" },
    });
    expect(fake.requests).toHaveLength(2);
    const sentBack = fake.requests[1]!.body.messages.at(-1);
    expect(sentBack).toMatchObject({ role: "tool", tool_call_id: "call_read" });
    expect(JSON.parse(sentBack.content)).toEqual({
      ok: false,
      error_code: "MODE_DENIED",
      tool_name: "read",
      mode: "chat_safe",
      message: expect.any(String),
      next_action: expect.any(String),
    });
    expect(transcript.at(-1)).toMatchObject({ role: "assistant", content: "I could not read it." });
  });
});
