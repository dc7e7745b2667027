// Cases from openclaw/openclaw src/agents/pi-tools.before-tool-call.test.ts (and its .e2e variant), plus its hook runner's newer rule that a
// block is terminal (first block wins). The merge is lib/policy/hooks.ts; ToolHooks (lib/agent/hooks.ts) runs it.
import { describe, expect, it } from "vitest";
import { ToolHooks, type ToolCallInfo } from "@/lib/runs/hooks";
import { applyHookParams, mergeBeforeToolCallHookResults } from "@/lib/policy";

const call = (params: Record<string, unknown>, callId = "call-1"): ToolCallInfo => ({
  callId,
  toolName: "exec",
  params,
  sessionId: "s",
  userId: "u",
  mode: "coding",
});

describe("pi-tools.before-tool-call.test.ts: before_tool_call hook integration", () => {
  it("executes tool normally when no hook is registered", async () => {
    const params = { path: "/tmp/file" };
    expect(await new ToolHooks().runBefore(call(params))).toEqual({ blocked: false, params });
  });

  it("P9 allows hook to modify parameters", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(() => ({ params: { mode: "safe" } }));
    expect(await hooks.runBefore(call({ cmd: "ls" }))).toEqual({ blocked: false, params: { cmd: "ls", mode: "safe" } });
  });

  it("P7 blocks tool execution when hook returns block=true", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(() => ({ block: true, blockReason: "blocked" }));
    expect(await hooks.runBefore(call({ cmd: "rm -rf /" }))).toEqual({ blocked: true, reason: "blocked" });
  });

  it("P12 continues execution when hook throws: ours blocks (fail closed)", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(() => {
      throw new Error("boom");
    });
    const out = await hooks.runBefore(call({ path: "/tmp/file" }));
    expect(out.blocked).toBe(true);
    expect(out.blocked && out.reason).toContain("boom");
  });
});

describe("pi-tools.before-tool-call.e2e.test.ts: before_tool_call hook deduplication (#15502)", () => {
  it("fires each hook exactly once per call", async () => {
    let calls = 0;
    const hooks = new ToolHooks().onBeforeToolCall(() => {
      calls += 1;
      return undefined;
    });
    await hooks.runBefore(call({ url: "https://example.com" }, "call-dedup"));
    expect(calls).toBe(1);
  });
});

describe("before_tool_call hook runner: first block wins", () => {
  it("P10 a later hook returning block: false does not clear an earlier block, and does not run", async () => {
    let laterRan = false;
    const hooks = new ToolHooks()
      .onBeforeToolCall(() => ({ block: true, blockReason: "first" }))
      .onBeforeToolCall(() => {
        laterRan = true;
        return { block: false, params: { cmd: "rm -rf /" } };
      });
    expect(await hooks.runBefore(call({ cmd: "ls" }))).toEqual({ blocked: true, reason: "first" });
    expect(laterRan).toBe(false);
  });

  it("the merge alone makes the first block final, with its own reason", () => {
    expect(
      mergeBeforeToolCallHookResults([
        { block: true, blockReason: "first" },
        { block: false },
        { block: true, blockReason: "second" },
      ]),
    ).toEqual({ block: true, blockReason: "first" });
    expect(
      mergeBeforeToolCallHookResults([{ blockReason: "stray reason" }, { block: true }, { params: { a: 1 } }]),
    ).toEqual({ block: true });
    expect(mergeBeforeToolCallHookResults([{ params: { a: 1 } }, { block: false }])).toEqual({ params: { a: 1 } });
  });

  it("params set before the block are not applied", async () => {
    const hooks = new ToolHooks()
      .onBeforeToolCall(() => ({ params: { cmd: "echo hi" } }))
      .onBeforeToolCall(() => ({ block: true }));
    expect(await hooks.runBefore(call({ cmd: "ls" }, "c9"))).toEqual({
      blocked: true,
      reason: "blocked by a beforeToolCall hook",
    });
    expect(hooks.adjustedParams("c9")).toBeUndefined();
  });

  it("a rewrite naming __proto__ adds a plain key and never changes a prototype", () => {
    const rewrite = JSON.parse('{"__proto__": {"polluted": true}, "cmd": "ls"}') as Record<string, unknown>;
    const out = applyHookParams({ cmd: "rm" }, { params: rewrite });
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.hasOwn(out, "__proto__")).toBe(true);
    expect(out.cmd).toBe("ls");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

// The same file's after_tool_call cases. The loop (lib/runs/calls.ts) calls runAfter with the canonical tool name
// and the validated arguments: a non-object argument never reaches a hook here, the gate refuses it first
// (INVALID_ARGUMENTS), where OpenClaw normalises it to {} for the hook ("normalizes non-object params").
describe("pi-tools.before-tool-call.test.ts: after_tool_call hook integration", () => {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

  it("P14 fires after_tool_call on successful execution", async () => {
    const seen: unknown[] = [];
    const hooks = new ToolHooks().onAfterToolCall((c) => void seen.push(c));
    hooks.runAfter({
      ...call({ path: "/tmp/file" }, "call-a1"),
      toolName: "read",
      ok: true,
      result: { content: [] },
      durationMs: 3,
    });
    await settle();
    expect(seen).toEqual([
      expect.objectContaining({
        toolName: "read",
        params: { path: "/tmp/file" },
        ok: true,
        result: { content: [] },
        durationMs: 3,
      }),
    ]);
  });

  it("P14 fires after_tool_call on failed execution with error", async () => {
    const seen: Array<{ ok: boolean; error?: string }> = [];
    const hooks = new ToolHooks().onAfterToolCall((c) => void seen.push(c));
    hooks.runAfter({ ...call({ cmd: "fail" }, "call-a2"), ok: false, error: "Error: kaboom", durationMs: 1 });
    await settle();
    expect(seen).toEqual([
      expect.objectContaining({ toolName: "exec", ok: false, error: expect.stringContaining("kaboom") }),
    ]);
  });

  it("P15 does not fire after_tool_call when no hooks registered, and a failing after hook changes nothing", async () => {
    const hooks = new ToolHooks();
    expect(() => hooks.runAfter({ ...call({}, "call-a3"), ok: true, durationMs: 0 })).not.toThrow();
    const failing = new ToolHooks().onAfterToolCall(() => {
      throw new Error("after failed");
    });
    expect(() => failing.runAfter({ ...call({}, "call-a4"), ok: true, durationMs: 0 })).not.toThrow();
    await settle();
  });
});
