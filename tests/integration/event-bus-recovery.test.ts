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

  // A database crash can lose the tail of the log after this process delivered it (a call's result commits without
  // waiting for the disk), and the sequence then hands those numbers out again. After the LISTEN connection comes
  // back, rows that reuse them must still be delivered, not skipped as already seen.
  it("after a reconnect, rows that reuse numbers of a lost tail are delivered", async () => {
    const bus = await import("@/lib/events/bus");
    const { listListenerPids } = await import("@/lib/db/events");
    const { Client } = await import("pg");
    const got: number[] = [];
    const unsubscribe = await bus.subscribeEvents((event) => {
      if (event.type === "test.rewound") got.push((event.payload as { n: number }).n);
    });
    const admin = new Client({ connectionString: url });
    await admin.connect();
    try {
      const seqs: number[] = [];
      for (const n of [1, 2, 3])
        seqs.push((await bus.publishEvent({ type: "test.rewound", scope: "approvals", payload: { n } })).seq);
      const deadline = Date.now() + 5_000;
      while (got.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(got).toEqual([1, 2, 3]);
      // What the database holds after losing the last two commits: their rows gone, the sequence behind them.
      await admin.query(`DELETE FROM "EventLog" WHERE "seq" >= $1`, [seqs[1]]);
      await admin.query(`SELECT setval(pg_get_serial_sequence('"EventLog"', 'seq'), $1)`, [seqs[0]]);
      const pids = await listListenerPids();
      expect(pids.length).toBeGreaterThan(0);
      for (const pid of pids) await admin.query("SELECT pg_terminate_backend($1)", [pid]);
      const reused = await bus.publishEvent({ type: "test.rewound", scope: "approvals", payload: { n: 4 } });
      expect(reused.seq).toBe(seqs[1]); // a number this process had delivered before
      const until = Date.now() + 10_000;
      while (!got.includes(4) && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual([1, 2, 3, 4]);
    } finally {
      unsubscribe();
      await admin.end();
    }
  });
});
