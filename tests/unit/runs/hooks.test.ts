// ToolHooks: before hooks block or rewrite (kept per call id in a bounded map), a throwing hook blocks,
// after hooks are fire-and-forget on success and on error and never block.
import { afterEach, describe, expect, it } from "vitest";
import { ToolHooks, type ToolCallInfo } from "@/lib/runs/hooks";
import { addLogSink, type LogRecord } from "@/lib/log";

const call = (callId: string, params: Record<string, unknown> = { path: "a.txt" }): ToolCallInfo => ({
  callId,
  toolName: "read",
  params,
  sessionId: "s1",
  userId: "u1",
  mode: "coding",
});

const removers: Array<() => void> = [];
afterEach(() => removers.splice(0).forEach((r) => r()));

describe("ToolHooks.runBefore", () => {
  it("passes the original params through when no hook says anything", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(() => undefined);
    const info = call("c1");
    const out = await hooks.runBefore(info);
    expect(out).toEqual({ blocked: false, params: info.params });
    expect(hooks.adjustedParams("c1")).toBeUndefined();
  });

  it("P7 blocks with the hook's reason", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(() => ({ block: true, blockReason: "no reading on Sundays" }));
    expect(await hooks.runBefore(call("c1"))).toEqual({ blocked: true, reason: "no reading on Sundays" });
  });

  it("P12 a hook that throws blocks the call, naming the failure, and later hooks do not run", async () => {
    let laterRan = false;
    const hooks = new ToolHooks()
      .onBeforeToolCall(() => {
        throw new Error("hook exploded");
      })
      .onBeforeToolCall(() => {
        laterRan = true;
      });
    const out = await hooks.runBefore(call("c1"));
    expect(out.blocked).toBe(true);
    expect(out.blocked && out.reason).toMatch(/hook exploded/);
    expect(laterRan).toBe(false);
  });

  it("a rejected async hook blocks too", async () => {
    const hooks = new ToolHooks().onBeforeToolCall(async () => Promise.reject(new Error("async failure")));
    expect((await hooks.runBefore(call("c1"))).blocked).toBe(true);
  });

  it("P8 rewrites overlay the original params, last setter wins, and are kept per call id", async () => {
    const hooks = new ToolHooks()
      .onBeforeToolCall(() => ({ params: { path: "first.txt", limit: 1 } }))
      .onBeforeToolCall((c) => (c.callId === "c2" ? { params: { path: "second.txt" } } : undefined));
    const one = await hooks.runBefore(call("c1", { path: "a.txt", offset: 3 }));
    const two = await hooks.runBefore(call("c2", { path: "b.txt" }));
    expect(one).toEqual({ blocked: false, params: { path: "first.txt", limit: 1, offset: 3 } });
    // The second hook's params replace the first's (merge: last setter wins), then overlay the original.
    expect(two).toEqual({ blocked: false, params: { path: "second.txt" } });
    expect(hooks.adjustedParams("c1")).toEqual({ path: "first.txt", limit: 1, offset: 3 });
    expect(hooks.adjustedParams("c2")).toEqual({ path: "second.txt" });
  });

  it("P8 the adjusted-params map is bounded: the oldest call id is evicted first", async () => {
    const hooks = new ToolHooks(3).onBeforeToolCall((c) => ({ params: { path: `${c.callId}.txt` } }));
    for (const id of ["c1", "c2", "c3", "c4", "c5"]) await hooks.runBefore(call(id));
    expect(hooks.trackedCount).toBe(3);
    expect(hooks.adjustedParams("c1")).toBeUndefined();
    expect(hooks.adjustedParams("c2")).toBeUndefined();
    expect(hooks.adjustedParams("c5")).toEqual({ path: "c5.txt" });
  });
});

describe("ToolHooks.runAfter", () => {
  it("P14 fires on success and on error, asynchronously, without blocking the caller", async () => {
    const seen: Array<{ callId: string; ok: boolean }> = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const hooks = new ToolHooks().onAfterToolCall(async (c) => {
      await gate;
      seen.push({ callId: c.callId, ok: c.ok });
    });
    hooks.runAfter({ ...call("ok1"), ok: true, result: { text: "hi" }, durationMs: 1 });
    hooks.runAfter({ ...call("err1"), ok: false, error: "boom", durationMs: 1 });
    // runAfter returned while the hooks are still waiting: fire-and-forget.
    expect(seen).toEqual([]);
    release();
    await new Promise((r) => setTimeout(r, 10));
    expect(seen).toEqual([
      { callId: "ok1", ok: true },
      { callId: "err1", ok: false },
    ]);
  });

  it("P15 a failing after hook is logged, not thrown, and other after hooks still run", async () => {
    const logs: LogRecord[] = [];
    removers.push(addLogSink((r) => logs.push(r)));
    let second = false;
    const hooks = new ToolHooks()
      .onAfterToolCall(() => {
        throw new Error("after failed");
      })
      .onAfterToolCall(() => {
        second = true;
      });
    expect(() => hooks.runAfter({ ...call("c9"), ok: true, durationMs: 0 })).not.toThrow();
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBe(true);
    expect(logs.find((l) => l.event === "after_tool_call_hook_failed")).toMatchObject({ level: "warn", callId: "c9" });
  });
});
