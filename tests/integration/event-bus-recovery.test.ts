// The event bus and the streams' fan-out subscribe once per process. When the database cannot be reached at that
// moment, the failure must not be kept: the next stream (or publisher) tries again and, once the database is back,
// events flow. PostgreSQL only: its database can be absent at first and appear later under the same URL (the app's
// config is read once per process, so the URL cannot change in between).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { newPostgresUrl, prepareDatabase, resetEventBus } from "../support/databases";

describe.runIf(Boolean(process.env.TEST_DATABASE_URL_PG))("event bus after a failed start (postgres)", () => {
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ url, drop } = await newPostgresUrl(process.env.TEST_DATABASE_URL_PG!));
    await drop(); // the URL names a database that does not exist yet
    process.env.DATABASE_URL = url;
    resetEventBus();
    vi.resetModules();
  });

  afterAll(async () => {
    resetEventBus();
    await drop();
  });

  it("a start that failed is tried again by the next subscriber, and then events arrive", async () => {
    const bus = await import("@/lib/events/bus");
    const fanOut = await import("@/lib/events/fan-out");
    await expect(bus.subscribeEvents(() => undefined)).rejects.toThrow();
    await expect(fanOut.listen()).rejects.toThrow();
    await expect(fanOut.listen()).rejects.toThrow(); // not a cached rejection: a second, fresh attempt

    prepareDatabase(url); // the database comes back
    const got: string[] = [];
    const unsubscribe = await bus.subscribeEvents((event) => {
      if (event.type === "test.recovered") got.push(String((event.payload as { n: number }).n));
    });
    await fanOut.listen();
    await bus.publishEvent({ type: "test.recovered", scope: "approvals", payload: { n: 1 } });
    const deadline = Date.now() + 5_000;
    while (got.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    unsubscribe();
    expect(got).toEqual(["1"]);
  });
});
