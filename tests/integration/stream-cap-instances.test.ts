// Issue 29, gap 1: the per-user stream cap holds across instances. Two built apps on one database (SQLite file, then
// PostgreSQL), EVENT_STREAMS_PER_USER=4: three streams on each close the two oldest wherever they are (told not to
// reconnect); concurrent openings on both never leave more than the cap; kill -9 of one instance: its leases expire
// and stop counting, and the survivor clears them.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_PASSWORD, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";
import { signedIn, type HttpClient } from "../support/http-client";
import { openSse, until } from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

const CAP = 4;
const LEASE_SECONDS = 3;
type Stream = ReturnType<typeof openSse>;
const closedByCap = (s: Stream) => s.events.some((e) => e.event === "stream.closed");

describe.each(databaseTargets())("stream cap across instances (%s)", (_kind, make) => {
  let a: RunningApp;
  let b: RunningApp;
  let db: Db;
  let drop: (() => Promise<void>) | undefined;
  const open: Stream[] = [];

  async function newMember(name: string): Promise<{ id: string; onA: HttpClient; onB: HttpClient }> {
    const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    const user = await db.user.create({
      data: { email, passwordHash: await hashPassword(DEMO_PASSWORD), roles: { create: [{ role: "member" }] } },
    });
    return { id: user.id, onA: await signedIn(a.url, email), onB: await signedIn(b.url, email) };
  }
  async function stream(client: HttpClient): Promise<Stream> {
    const s = openSse(client, "/api/me/events");
    open.push(s);
    await s.ready;
    return s;
  }
  const liveLeases = (userId: string) =>
    db.eventStreamLease.count({ where: { userId, expiresAt: { gt: new Date() } } });
  const accountEvent = (userId: string) =>
    db.eventLog.create({
      data: { type: "account.changed", scope: "account", sessionId: null, payload: { userId, change: "roles" } },
    });

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    const env = {
      EVENT_STREAMS_PER_USER: String(CAP),
      EVENT_STREAM_LEASE_SECONDS: String(LEASE_SECONDS),
      EVENT_POLL_MS: "200",
    };
    [a, b] = await Promise.all([
      startApp({ databaseUrl: target.url, env }),
      startApp({ databaseUrl: target.url, env }),
    ]);
    db = createDb(target.url);
  }, 180_000);

  afterAll(async () => {
    const settle = (p: Promise<unknown>) =>
      Promise.race([p.catch(() => undefined), new Promise((r) => setTimeout(r, 5_000))]);
    const times: Record<string, number> = {};
    let t = Date.now();
    await Promise.all(open.map((s) => settle(s.close())));
    times.streams = Date.now() - t;
    t = Date.now();
    await Promise.all([a?.stop(), b?.stop()]);
    times.apps = Date.now() - t;
    t = Date.now();
    await db?.$disconnect();
    vi.resetModules();
    await drop?.();
    times.db = Date.now() - t;
    console.log("afterAll", JSON.stringify(times));
  }, 60_000);

  it("3 streams on each instance with a cap of 4: the two oldest (on the other instance) close, told not to reconnect; the rest and another member keep their events", async () => {
    const m = await newMember("spread");
    const other = await newMember("bystander");
    const bystander = await stream(other.onB);
    const onA = [await stream(m.onA), await stream(m.onA), await stream(m.onA)];
    const onB = [await stream(m.onB), await stream(m.onB), await stream(m.onB)];
    // A learns at its next renewal (every second here) that B's openings deleted its two oldest leases.
    for (const s of onA.slice(0, 2)) {
      expect((await s.waitFor((e) => e.event === "stream.closed", 20_000)).data).toEqual({
        reason: "too_many_streams",
        reconnect: false,
      });
      await s.ended;
    }
    await until("the cap's leases", async () => (await liveLeases(m.id)) === CAP, 20_000);
    await accountEvent(m.id);
    await accountEvent(other.id);
    for (const s of [onA[2]!, ...onB]) await s.waitFor((e) => e.event === "account.changed", 20_000);
    expect((await bystander.waitFor((e) => e.event === "account.changed", 20_000)).data).toMatchObject({
      payload: { userId: other.id },
    });
    for (const s of [onA[2]!, ...onB, bystander]) expect(closedByCap(s)).toBe(false);
    // One more on A closes A's own oldest at once (while the new stream is being counted, before any replay).
    const fresh = await stream(m.onA);
    await onA[2]!.waitFor((e) => e.event === "stream.closed", 5_000);
    await accountEvent(m.id);
    for (const s of [fresh, ...onB])
      await s.waitFor((e) => e.event === "account.changed" && e.data?.payload?.userId === m.id, 20_000);
    await until("the cap's leases", async () => (await liveLeases(m.id)) === CAP, 20_000);
  }, 90_000);

  it("8 streams opened at once on both instances leave exactly the cap open", async () => {
    const m = await newMember("burst");
    const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => stream(i % 2 ? m.onB : m.onA)));
    await until("the cap to hold", async () => burst.filter(closedByCap).length === 8 - CAP, 20_000);
    await until("the cap's leases", async () => (await liveLeases(m.id)) === CAP, 20_000);
    // The survivors are the newest leases: no instance keeps a stream whose lease is gone.
    await accountEvent(m.id);
    const survivors = burst.filter((s) => !closedByCap(s));
    expect(survivors).toHaveLength(CAP);
    for (const s of survivors) await s.waitFor((e) => e.event === "account.changed", 20_000);
  }, 90_000);

  it("kill -9 of one instance: its leases expire and stop counting, the survivor clears them, and the cap counts from what is left", async () => {
    const m = await newMember("crash");
    const onA = await stream(m.onA);
    for (let i = 0; i < 3; i++) await stream(m.onB);
    // A stream says it is connected before its lease is written: wait for the fourth.
    await until("four leases", async () => (await liveLeases(m.id)) === CAP, 20_000);
    const rows = await db.eventStreamLease.findMany({ where: { userId: m.id }, orderBy: { openedAt: "asc" } });
    const deadInstance = rows.find((r) => r.instanceId !== rows[0]!.instanceId)!.instanceId;
    process.kill(-b.process.pid!, "SIGKILL");
    await until("B's leases to expire", async () => (await liveLeases(m.id)) === 1, 30_000);
    // A's renewal deletes expired rows of any instance.
    await until(
      "B's rows to be cleared",
      async () => (await db.eventStreamLease.count({ where: { instanceId: deadInstance } })) === 0,
      30_000,
    );
    // Three more on A: 1 + 3 = the cap, nothing closes; the oldest still gets events.
    const more = [await stream(m.onA), await stream(m.onA), await stream(m.onA)];
    await accountEvent(m.id);
    for (const s of [onA, ...more]) await s.waitFor((e) => e.event === "account.changed", 20_000);
    for (const s of [onA, ...more]) expect(closedByCap(s)).toBe(false);
    // The fifth closes the oldest.
    await stream(m.onA);
    await onA.waitFor((e) => e.event === "stream.closed", 5_000);
  }, 90_000);
});
