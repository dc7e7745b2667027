// beforeToolCall hook results: how several hooks' answers combine into one, and how a rewrite applies.

/** Upper bound of rewritten-parameter entries kept per call id. */
export const MAX_TRACKED_ADJUSTED_PARAMS = 1_024;

export type BeforeToolCallHookResult = { params?: Record<string, unknown>; block?: boolean; blockReason?: string };

/**
 * Hooks run in order. A block is terminal: the first hook that blocks decides, with its own reason, and nothing a
 * later hook returns (`block: false`, new params, another reason) can undo it. Until then the last hook to set
 * `params` wins. (The reference's old mergeResults let a later `block: false` clear an earlier block.)
 */
export function mergeBeforeToolCallHookResults(
  results: ReadonlyArray<BeforeToolCallHookResult | undefined>,
): BeforeToolCallHookResult {
  let params: Record<string, unknown> | undefined;
  for (const next of results) {
    if (!next) continue;
    if (next.block === true)
      return { block: true, ...(next.blockReason !== undefined ? { blockReason: next.blockReason } : {}) };
    if (next.params) params = next.params;
  }
  return params ? { params } : {};
}

/** True once a result blocks: the caller can stop running later hooks, they cannot change the outcome. */
export function isBlockingHookResult(result: BeforeToolCallHookResult | undefined): boolean {
  return result?.block === true;
}

/** A hook rewrites by overlaying its fields; the original arguments are kept, not replaced. Own keys only: a
 * rewrite naming `__proto__` sets a plain key, never the prototype. */
export function applyHookParams(
  original: Record<string, unknown>,
  hook: BeforeToolCallHookResult,
): Record<string, unknown> {
  if (!hook.params) return original;
  const out: Record<string, unknown> = {};
  for (const source of [original, hook.params]) {
    for (const key of Object.keys(source))
      Object.defineProperty(out, key, { value: source[key], enumerable: true, writable: true, configurable: true });
  }
  return out;
}
