// State that must exist once per process lives on globalThis, under a fixed key. Next.js loads a module more than
// once in one process: each route bundle, instrumentation.ts and the lean stream handler get their own copy, and dev
// (HMR) reloads it. Module-level state would then be one per copy: two pools, two registries, timers started
// twice, counters /metrics never sees, a lease heartbeat that takes another copy's run for lost. The keys are
// plain `toolgate*` names: tests and scripts/server.mjs (which cannot import the app's modules) reach some by name.

/** The one value of `key` in this process, made by `create` the first time any copy of a module asks. */
export function processSingleton<T>(key: string, create: () => T): T {
  const slots = globalThis as unknown as Record<string, T | undefined>;
  return (slots[key] ??= create());
}

/** This process's slots for state a module sets and clears itself (timers, started flags, in-flight promises). */
export function processSlots<Slots extends object>(): Partial<Slots> {
  return globalThis as unknown as Partial<Slots>;
}
