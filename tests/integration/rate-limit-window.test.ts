// The database-backed rate limits count a request in one Prisma operation (lib/auth/prisma-limiter.ts; the library's
// own store spends two: a delete of an expired window, then the upsert), and still count every request, concurrent
// ones too, and start a new window once the old one ended, exactly once when several requests find it ended.
import { beforeAll, describe, expect, it } from "vitest";
import { dbTargets, useAgentOnDatabase } from "../support/agent-harness";
import { countOperations, type OperationLog } from "../support/operation-count";

const LIMIT = 5;
process.env.MCP_REQUESTS_PER_MINUTE = String(LIMIT);

describe.each(dbTargets())("rate limit windows (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let ops: OperationLog;
  let throttle: typeof import("@/lib/auth/throttle");
  beforeAll(async () => {
    throttle = await import("@/lib/auth/throttle");
    ops = countOperations(process.env.DATABASE_URL!);
  });

  const outcome = (p: Promise<void>) =>
    p.then(
      () => "ok",
      (error: { code?: string }) => error.code ?? String(error),
    );
  const row = (token: string) => h.agent.db.rateLimiterFlexible.findUnique({ where: { key: `mcp:${token}` } });

  it("counts a request in one operation, and refuses past the limit", async () => {
    for (let i = 0; i < LIMIT; i++) {
      const operations = await ops.during(() => throttle.consumeTokenQuota("one-op"));
      expect(operations).toEqual(["RateLimiterFlexible.upsert"]);
    }
    expect(await outcome(throttle.consumeTokenQuota("one-op"))).toBe("RATE_LIMITED");
    expect((await row("one-op"))?.points).toBe(LIMIT + 1);
  });

  it("counts concurrent requests: exactly the limit gets through", async () => {
    const results = await Promise.all(
      Array.from({ length: LIMIT + 3 }, () => outcome(throttle.consumeTokenQuota("concurrent"))),
    );
    expect(results.filter((r) => r === "ok")).toHaveLength(LIMIT);
    expect(results.filter((r) => r === "RATE_LIMITED")).toHaveLength(3);
  });

  it("starts a new window once the old one ended, once, with every request of the moment counted in it", async () => {
    for (let i = 0; i < LIMIT; i++) await throttle.consumeTokenQuota("window");
    expect(await outcome(throttle.consumeTokenQuota("window"))).toBe("RATE_LIMITED");
    await h.agent.db.rateLimiterFlexible.update({
      where: { key: "mcp:window" },
      data: { expire: new Date(Date.now() - 1000) },
    });
    const results = await Promise.all(Array.from({ length: 3 }, () => outcome(throttle.consumeTokenQuota("window"))));
    expect(results).toEqual(["ok", "ok", "ok"]);
    const fresh = await row("window");
    expect(fresh?.points).toBe(3);
    expect(fresh?.expire?.getTime()).toBeGreaterThan(Date.now() + 50_000);
  });
});
