// Next.js bundles lib/runs/lease.ts into several chunks of one server process (route handlers, instrumentation).
// Each copy must name the same instance: with a name per copy, the one shared heartbeat took a run that another
// copy had claimed (after an approval) for a lost lease and aborted its command a moment after it started.
import { describe, expect, it, vi } from "vitest";

describe("run lease identity", () => {
  it("two separately loaded copies of the lease module share one INSTANCE_ID and one table of held runs", async () => {
    const first = await import("@/lib/runs/lease");
    vi.resetModules();
    const second = await import("@/lib/runs/lease");
    expect(second).not.toBe(first); // really two module instances, as in two chunks
    expect(second.INSTANCE_ID).toBe(first.INSTANCE_ID);
    const release = first.holdRun("run-held-by-copy-1", new AbortController());
    try {
      expect(second.heldRunIds()).toContain("run-held-by-copy-1");
    } finally {
      release();
    }
  });
});
