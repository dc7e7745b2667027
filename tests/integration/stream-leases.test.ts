// The stream leases behind the cross-instance cap (lib/events/stream-cap.ts, lib/db/event-stream-leases.ts) on real
// SQLite and PostgreSQL, in this process: many held leases renew (the driver's bound-parameter limit), concurrent
// openings keep exactly the newest `max`, a lease deleted elsewhere closes its stream at the next renewal, and a
// crashed instance's expired lease does not count.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, prepareDatabase } from "../support/databases";

describe.each(databaseTargets())("event stream leases (%s)", (_kind, make) => {
  let cap: typeof import("@/lib/events/stream-cap");
  let db: import("@/lib/db/client").Db;
  let drop: (() => Promise<void>) | undefined;
  const releases: Array<() => void> = [];
  let n = 0;
  const newUser = async () =>
    (await db.user.create({ data: { email: `lease-${n++}-${Date.now()}@example.com`, passwordHash: "x" } })).id;
  async function admit(userId: string, max: number, onEvict: () => void = () => undefined) {
    const release = await cap.admitStream(userId, { evict: onEvict }, max);
    releases.push(release);
    return release;
  }

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    cap = await import("@/lib/events/stream-cap");
    db = (await import("@/lib/db/client")).createDb(target.url);
  }, 120_000);

  afterAll(async () => {
    for (const release of releases) release();
    await cap?.renewStreamLeasesNow(); // nothing held: stops the renewal timer
    await db?.$disconnect();
    // The next target needs fresh modules: lib/config caches DATABASE_URL on first use.
    vi.resetModules();
    await drop?.();
  });

  it("1,200 held leases renew in one pass, every row's expiry moved forward", async () => {
    const users = await Promise.all(Array.from({ length: 40 }, newUser));
    for (let i = 0; i < 1_200; i++) await admit(users[i % 40]!, 1_000);
    await db.eventStreamLease.updateMany({
      where: { userId: { in: users } },
      data: { expiresAt: new Date(Date.now() + 1_000) },
    });
    expect(await cap.renewStreamLeasesNow()).toBe(true);
    expect(
      await db.eventStreamLease.count({
        where: { userId: { in: users }, expiresAt: { lt: new Date(Date.now() + 5_000) } },
      }),
    ).toBe(0);
    expect(await db.eventStreamLease.count({ where: { userId: { in: users } } })).toBe(1_200);
  }, 120_000);

  it("40 openings at once with a cap of 5 keep exactly the 5 newest; the other 35 are evicted, once each", async () => {
    const user = await newUser();
    const evicted: number[] = [];
    await Promise.all(Array.from({ length: 40 }, (_, i) => admit(user, 5, () => evicted.push(i))));
    expect(evicted).toHaveLength(35);
    expect(new Set(evicted).size).toBe(35);
    const rows = await db.eventStreamLease.findMany({
      where: { userId: user },
      orderBy: [{ openedAt: "asc" }, { id: "asc" }],
    });
    expect(rows).toHaveLength(5);
    expect(cap.openStreamCount(user)).toBe(5);
  }, 60_000);

  it("a lease deleted by another instance closes its stream at the next renewal; the others stay", async () => {
    const user = await newUser();
    let closed = 0;
    let other = 0;
    await admit(user, 10, () => closed++);
    await admit(user, 10, () => other++);
    const oldest = await db.eventStreamLease.findFirstOrThrow({
      where: { userId: user },
      orderBy: [{ openedAt: "asc" }, { id: "asc" }],
    });
    await db.eventStreamLease.delete({ where: { id: oldest.id } });
    expect(await cap.renewStreamLeasesNow()).toBe(true);
    expect(closed).toBe(1);
    expect(other).toBe(0);
    expect(cap.openStreamCount(user)).toBe(1);
  });

  it("a crashed instance's expired lease does not count against the cap, and is cleared", async () => {
    const user = await newUser();
    await db.eventStreamLease.create({
      data: {
        id: `dead-${Date.now()}`,
        userId: user,
        instanceId: "crashed:1:dead",
        openedAt: new Date(Date.now() - 60_000),
        expiresAt: new Date(Date.now() - 1_000),
      },
    });
    let evicted = 0;
    await admit(user, 1, () => evicted++);
    expect(evicted).toBe(0);
    expect(await db.eventStreamLease.count({ where: { instanceId: "crashed:1:dead" } })).toBe(0);
    // A live lease of another instance does count: this instance's stream (the older one) is closed.
    await db.eventStreamLease.create({
      data: {
        id: `zzz-${Date.now()}`,
        userId: user,
        instanceId: "other:2:live",
        openedAt: new Date(Date.now() + 1_000),
        expiresAt: new Date(Date.now() + 60_000),
      },
    });
    await admit(user, 2, () => evicted++);
    expect(evicted).toBe(1);
  });

  it("a released stream's lease is deleted", async () => {
    const user = await newUser();
    const release = await admit(user, 5);
    expect(await db.eventStreamLease.count({ where: { userId: user } })).toBe(1);
    release();
    await vi.waitFor(async () => expect(await db.eventStreamLease.count({ where: { userId: user } })).toBe(0), {
      timeout: 10_000,
      interval: 50,
    });
  });
});
