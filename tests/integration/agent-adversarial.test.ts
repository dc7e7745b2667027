// A model that misbehaves, against the real loop and a real database: hidden tools, malformed and
// schema-failing arguments, twenty calls in one step, an unreadable stored policy, and hooks in the loop.
import fs from "node:fs";
import path from "node:path";
import { createAnthropic } from "@ai-sdk/anthropic";
import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import { beforeAll, describe, expect, it } from "vitest";
import {
  dbTargets,
  finishPart,
  scriptedModel,
  seenBy,
  toolCallPart,
  type Agent,
  type AgentUser,
  useAgentOnDatabase,
} from "../support/agent-harness";

/** The body the Anthropic provider would send for a prompt (captured; nothing leaves the machine). */
async function anthropicRequest(
  prompt: LanguageModelV3Prompt,
): Promise<{ messages: Array<{ content: Array<{ type: string; input?: unknown }> }> }> {
  let body: unknown;
  const model = createAnthropic({
    apiKey: "test-key",
    fetch: async (_url, init) => {
      body = JSON.parse(String(init?.body));
      return new Response(
        JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "captured" } }),
        { status: 400, headers: { "content-type": "application/json" } },
      );
    },
  }).languageModel("claude-test");
  await Promise.resolve(model.doStream({ prompt })).catch(() => undefined);
  return body as Awaited<ReturnType<typeof anthropicRequest>>;
}

describe.each(dbTargets())("adversarial model (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let agent: Agent;
  let member: AgentUser;
  let owner: AgentUser;
  beforeAll(() => void ({ agent, member, owner } = h));

  const toolRows = (transcript: Array<{ role: string; toolCallId: string | null; parts: unknown }>) =>
    transcript
      .filter((m) => m.role === "tool")
      .map((m) => ({ id: m.toolCallId, ...(m.parts as { status: string; output: { error_code?: string } }) }));

  it("a hidden tool is denied and never executed: write creates no file", async () => {
    const s = await agent.session(member.id);
    const model = scriptedModel([
      [toolCallPart("w_hidden", "write", '{"path":"pwned.txt","content":"owned"}'), finishPart("tool-calls")],
    ]);
    const { chunks, transcript } = await agent.turn({ sessionId: s.id, user: member, text: "do it", model });
    expect(seenBy(model.doStreamCalls[0]!).tools).not.toContain("write");
    expect(toolRows(transcript)).toEqual([
      { id: "w_hidden", status: "denied", output: expect.objectContaining({ error_code: "MODE_DENIED" }) },
    ]);
    expect(fs.existsSync(path.join(agent.workspaceRoot, member.id, "pwned.txt"))).toBe(false);
    expect(chunks.some((c) => c.type === "tool-output-available")).toBe(false);
  });

  it("a tool hidden by a policy layer in coding is POLICY_DENIED naming the layer, and not run", async () => {
    await agent.setPolicy({ tools: { deny: ["write"] } });
    try {
      const s = await agent.session(owner.id, "coding");
      const model = scriptedModel([
        [toolCallPart("w_denied", "write", '{"path":"denied.txt","content":"x"}'), finishPart("tool-calls")],
      ]);
      const { transcript } = await agent.turn({ sessionId: s.id, user: owner, text: "write", model });
      expect(seenBy(model.doStreamCalls[0]!).tools).not.toContain("write");
      expect(seenBy(model.doStreamCalls[0]!).tools).toContain("read");
      expect(toolRows(transcript)[0]).toMatchObject({
        status: "denied",
        output: { error_code: "POLICY_DENIED", message: expect.stringContaining("write") },
      });
      expect(fs.existsSync(path.join(agent.workspaceRoot, owner.id, "denied.txt"))).toBe(false);
      const row = await agent.db.auditLog.findFirst({ where: { sessionId: s.id, callId: "w_denied" } });
      expect(row).toMatchObject({ decision: "deny", layer: "global" });
    } finally {
      await agent.setPolicy({});
    }
  });

  it.each([
    ["malformed JSON", '{"timezone": "UT'],
    ["a schema-failing value", '{"timezone": 5}'],
    ["a JSON array", "[1,2]"],
    // Deeper than any recursive walk between the model and the database (hashing, sanitising, storing) can go.
    ["arguments nested 5,000 levels deep", `{"timezone": ${"[".repeat(5_000)}${"]".repeat(5_000)}}`],
  ])("%s as arguments is INVALID_ARGUMENTS to the model, and the tool does not run", async (_label, input) => {
    const s = await agent.session(owner.id);
    const model = scriptedModel([[toolCallPart("bad1", "current_time", input), finishPart("tool-calls")]]);
    const { chunks, transcript, result } = await agent.turn({ sessionId: s.id, user: owner, text: "time", model });
    expect(toolRows(transcript)).toEqual([
      {
        id: "bad1",
        status: "denied",
        output: expect.objectContaining({ error_code: "INVALID_ARGUMENTS", tool_name: "current_time" }),
      },
    ]);
    expect(chunks.some((c) => c.type === "tool-output-available")).toBe(false);
    const resent = model.doStreamCalls[1]!.prompt.at(-1)!;
    expect(JSON.stringify(resent)).toContain("INVALID_ARGUMENTS");
    expect(result.status).toBe("completed");
    // The refused call goes back to the model in the next request, through the provider's own request builder: a
    // provider takes a call's input only as an object (Anthropic's tool_use.input), whatever the model sent.
    const uses = (await anthropicRequest(model.doStreamCalls[1]!.prompt)).messages
      .flatMap((m) => m.content)
      .filter((c) => c.type === "tool_use");
    expect(uses).toHaveLength(1);
    expect(uses[0]!.input).toEqual(expect.any(Object));
    expect(Array.isArray(uses[0]!.input)).toBe(false);
  });

  it("twenty calls in one step: every call gets a result, calls beyond the cap get LIMIT_EXCEEDED and none of them run", async () => {
    const { MAX_CALLS_PER_STEP } = agent.runTurnModule;
    const s = await agent.session(owner.id);
    const calls = Array.from({ length: 20 }, (_, i) =>
      toolCallPart(`c${String(i).padStart(2, "0")}`, "current_time", "{}"),
    );
    const model = scriptedModel([[...calls, finishPart("tool-calls")]]);
    const { chunks, transcript, result } = await agent.turn({ sessionId: s.id, user: owner, text: "flood", model });
    const rows = toolRows(transcript);
    expect(rows.map((r) => r.id)).toEqual(calls.map((c) => (c as { toolCallId: string }).toolCallId));
    expect(rows.slice(0, MAX_CALLS_PER_STEP).every((r) => r.status === "ok")).toBe(true);
    expect(rows.slice(MAX_CALLS_PER_STEP).map((r) => r.output.error_code)).toEqual(
      Array(20 - MAX_CALLS_PER_STEP).fill("LIMIT_EXCEEDED"),
    );
    expect(chunks.filter((c) => c.type === "tool-output-available")).toHaveLength(MAX_CALLS_PER_STEP);
    expect(chunks.filter((c) => c.type === "tool-input-available")).toHaveLength(MAX_CALLS_PER_STEP);
    expect(chunks.filter((c) => c.type === "data-tool_denied")).toHaveLength(20 - MAX_CALLS_PER_STEP);
    const allowed = await agent.db.auditLog.count({
      where: { sessionId: s.id, action: "tool.call", decision: "allow" },
    });
    expect(allowed).toBe(MAX_CALLS_PER_STEP);
    // The model got a result for each of the twenty calls, then answered with text.
    const resultsSent = model.doStreamCalls[1]!.prompt.filter((m) => m.role === "tool").flatMap((m) => m.content);
    expect(resultsSent).toHaveLength(20);
    expect(transcript.at(-1)).toMatchObject({ role: "assistant", content: "done after tools" });
    expect(result.status).toBe("completed");
  });

  it("fails closed on an invalid stored policy: no tools shown, every call POLICY_DENIED", async () => {
    const version = await agent.db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    await agent.db.policyVersion.create({
      data: { version: (version?.version ?? 0) + 1, document: { tools: { allow: 5 } } as never },
    });
    try {
      const s = await agent.session(owner.id, "coding");
      const model = scriptedModel([
        [
          toolCallPart("x1", "current_time", "{}"),
          toolCallPart("x2", "read", '{"path":"a"}'),
          finishPart("tool-calls"),
        ],
      ]);
      const { transcript, chunks } = await agent.turn({ sessionId: s.id, user: owner, text: "anything", model });
      expect(seenBy(model.doStreamCalls[0]!).tools).toEqual([]);
      expect(seenBy(model.doStreamCalls[0]!).system).toMatch(/No tools are available/);
      expect(toolRows(transcript).map((r) => [r.status, r.output.error_code])).toEqual([
        ["denied", "POLICY_DENIED"],
        ["denied", "POLICY_DENIED"],
      ]);
      expect(chunks.some((c) => c.type === "tool-output-available")).toBe(false);
      // The transcript stays readable (as chat_safe), and no switch to coding is allowed while the policy is unreadable.
      const { getChatSession } = await import("@/lib/runs/sessions");
      const { changeSessionMode } = await import("@/lib/sessions/access");
      const view = await getChatSession({ user: owner, sessionId: s.id });
      expect(view).toMatchObject({ mode: "chat_safe", storedMode: "coding", grantedModes: ["chat_safe"] });
      expect(view.transcript.length).toBe(transcript.length);
      await expect(changeSessionMode({ user: owner, sessionId: s.id, mode: "coding" })).rejects.toMatchObject({
        code: "FORBIDDEN",
      });
    } finally {
      await agent.setPolicy({});
    }
  });

  it("P7/P9/P12/P13 hooks in the loop: a blocking hook denies, a throwing hook denies, a rewrite is what runs, after hooks see it", async () => {
    const { ToolHooks } = await import("@/lib/runs/hooks");
    const after: Array<{ callId: string; ok: boolean; params: Record<string, unknown> }> = [];
    const hooks = new ToolHooks()
      .onBeforeToolCall((c) => (c.callId === "h_block" ? { block: true, blockReason: "blocked by test" } : undefined))
      .onBeforeToolCall((c) => {
        if (c.callId === "h_throw") throw new Error("hook crashed");
      })
      .onBeforeToolCall((c) => (c.callId === "h_rewrite" ? { params: { timezone: "Asia/Tokyo" } } : undefined))
      .onAfterToolCall((c) => {
        after.push({ callId: c.callId, ok: c.ok, params: c.params });
      });
    const s = await agent.session(owner.id);
    const model = scriptedModel([
      [
        toolCallPart("h_block", "current_time", "{}"),
        toolCallPart("h_throw", "current_time", "{}"),
        toolCallPart("h_rewrite", "current_time", '{"timezone":"UTC"}'),
        finishPart("tool-calls"),
      ],
    ]);
    const { transcript } = await agent.turn({ sessionId: s.id, user: owner, text: "hooks", model, hooks });
    const rows = toolRows(transcript);
    expect(rows[0]).toMatchObject({
      id: "h_block",
      status: "denied",
      output: { error_code: "POLICY_DENIED", message: expect.stringContaining("blocked by test") },
    });
    expect(rows[1]).toMatchObject({
      id: "h_throw",
      status: "denied",
      output: { message: expect.stringContaining("hook crashed") },
    });
    expect(rows[2]).toMatchObject({ id: "h_rewrite", status: "ok", output: { timezone: "Asia/Tokyo" } });
    expect(hooks.adjustedParams("h_rewrite")).toEqual({ timezone: "Asia/Tokyo" });
    await new Promise((r) => setTimeout(r, 20));
    // The after hook receives the parameters the before hook rewrote, not the model's.
    expect(after).toEqual([{ callId: "h_rewrite", ok: true, params: { timezone: "Asia/Tokyo" } }]);
    const layers = await agent.db.auditLog.findMany({
      where: { sessionId: s.id, action: "tool.call" },
      orderBy: { seq: "asc" },
      select: { layer: true, decision: true },
    });
    expect(layers).toEqual([
      { layer: "hook", decision: "deny" },
      { layer: "hook", decision: "deny" },
      { layer: "allowed", decision: "allow" },
    ]);
  });
});
