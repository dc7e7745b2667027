// beforeToolCall / afterToolCall hooks around every call that passed the gate. A before hook may block or
// rewrite parameters (merged in order: the first block is final, otherwise the last params win; rewritten
// parameters are kept per call id in a bounded map); a hook that throws blocks the call. After hooks are fire-and-forget on success and error.
import {
  applyHookParams,
  isBlockingHookResult,
  MAX_TRACKED_ADJUSTED_PARAMS,
  mergeBeforeToolCallHookResults,
  type BeforeToolCallHookResult,
  type ToolMode,
} from "@/lib/policy";
import { log } from "@/lib/log";

export type ToolCallInfo = {
  callId: string;
  toolName: string;
  params: Record<string, unknown>;
  sessionId: string;
  userId: string;
  mode: ToolMode;
};
export type BeforeToolCallHook = (
  call: ToolCallInfo,
) => BeforeToolCallHookResult | void | Promise<BeforeToolCallHookResult | void>;
export type AfterToolCallHook = (
  call: ToolCallInfo & { ok: boolean; result?: unknown; error?: string; durationMs: number },
) => void | Promise<void>;

export type BeforeOutcome = { blocked: true; reason: string } | { blocked: false; params: Record<string, unknown> };

export class ToolHooks {
  private readonly before: BeforeToolCallHook[] = [];
  private readonly after: AfterToolCallHook[] = [];
  private readonly adjusted = new Map<string, Record<string, unknown>>();

  constructor(readonly maxTracked = MAX_TRACKED_ADJUSTED_PARAMS) {}

  onBeforeToolCall(hook: BeforeToolCallHook): this {
    this.before.push(hook);
    return this;
  }

  onAfterToolCall(hook: AfterToolCallHook): this {
    this.after.push(hook);
    return this;
  }

  async runBefore(call: ToolCallInfo): Promise<BeforeOutcome> {
    const results: Array<BeforeToolCallHookResult | undefined> = [];
    for (const hook of this.before) {
      try {
        const result = (await hook(call)) ?? undefined;
        results.push(result);
        // First block wins: later hooks cannot undo it, so they do not run.
        if (isBlockingHookResult(result)) break;
      } catch (error) {
        return {
          blocked: true,
          reason: `a beforeToolCall hook failed: ${error instanceof Error ? error.message : String(error)}`,
        };
      }
    }
    const merged = mergeBeforeToolCallHookResults(results);
    if (merged.block) return { blocked: true, reason: merged.blockReason ?? "blocked by a beforeToolCall hook" };
    const params = applyHookParams(call.params, merged);
    if (merged.params) this.remember(call.callId, params);
    return { blocked: false, params };
  }

  runAfter(call: Parameters<AfterToolCallHook>[0]): void {
    for (const hook of this.after) {
      Promise.resolve()
        .then(() => hook(call))
        .catch((error) => log("warn", "after_tool_call_hook_failed", { callId: call.callId, error: String(error) }));
    }
  }

  adjustedParams(callId: string): Record<string, unknown> | undefined {
    return this.adjusted.get(callId);
  }

  get trackedCount(): number {
    return this.adjusted.size;
  }

  private remember(callId: string, params: Record<string, unknown>) {
    this.adjusted.delete(callId);
    this.adjusted.set(callId, params);
    // Oldest first out: Map keeps insertion order.
    while (this.adjusted.size > this.maxTracked) {
      const oldest = this.adjusted.keys().next().value;
      if (oldest === undefined) break;
      this.adjusted.delete(oldest);
    }
  }
}
