// Issue 29, findings 2 and 4, over real HTTP on an app of its own per database (its limits are low): what one member
// can make the server keep. Event streams: a cap per user whose evicted stream is told not to reconnect, a retention
// window with background pruning, and a replay that is bounded (a stale or pruned Last-Event-ID starts from a fresh
// snapshot). Writes: session creations and renames cut off per user, with memory measured around a 4,000-request burst.
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_PASSWORD, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";
import { signedIn, type HttpClient } from "../support/http-client";
import { openSse } from "../support/approvals-helpers";
import { until } from "../support/stream-sinks";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

const STREAM_CAP = 8;
const REPLAY_MAX = 50;
const SESSION_WRITES = 20;
const RETENTION_SECONDS = 10;

const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;

describe.each(databaseTargets())("member bounds (%s)", (kind, make) => {
  let app: RunningApp;
  let db: Db;
  let drop: (() => Promise<void>) | undefined;
  const login = (email: string) => signedIn(app.url, email);
  async function newMember(name: string): Promise<{ id: string; client: HttpClient }> {
    const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    const user = await db.user.create({
      data: { email, passwordHash: await hashPassword(DEMO_PASSWORD), roles: { create: [{ role: "member" }] } },
    });
    return { id: user.id, client: await login(email) };
  }
  /** Rows written as another instance would write them (on SQLite the app's tailer polls, EVENT_POLL_MS). */
  const put = async (
    n: number,
    data: { type?: string; scope?: string; sessionId?: string | null; payload?: unknown; createdAt?: Date } = {},
  ) => {
    const seqs: number[] = [];
    for (let i = 0; i < n; i++)
      seqs.push(
        (
          await db.eventLog.create({
            data: {
              type: data.type ?? "noise",
              scope: data.scope ?? "session",
              sessionId: data.sessionId ?? "nobody",
              payload: (data.payload ?? { i }) as never,
              createdAt: data.createdAt,
            },
          })
        ).seq,
      );
    return seqs;
  };
  const accountEvent = (userId: string) => ({
    type: "account.changed",
    scope: "account",
    sessionId: null,
    payload: { userId, change: "roles" },
  });

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    app = await startApp({
      databaseUrl: target.url,
      env: {
        EVENT_STREAMS_PER_USER: String(STREAM_CAP),
        EVENT_REPLAY_MAX_ROWS: String(REPLAY_MAX),
        EVENT_RETENTION_SECONDS: String(RETENTION_SECONDS),
        SESSION_WRITES_PER_MINUTE: String(SESSION_WRITES),
        EVENT_POLL_MS: "200",
        AUDIT_WITNESS_INTERVAL_MS: "500",
      },
    });
    db = createDb(target.url);
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    vi.resetModules();
    await drop?.();
  });

  it("streams past the per-user cap close the oldest, whose last event says not to reconnect; another member is untouched", async () => {
    const a = await newMember("cap-a");
    const b = await newMember("cap-b");
    const other = openSse(b.client, "/api/me/events");
    await other.ready;
    const streams = [];
    for (let i = 0; i < STREAM_CAP + 4; i++) {
      const s = openSse(a.client, "/api/me/events");
      await s.ready;
      streams.push(s);
    }
    const evicted = streams.slice(0, 4);
    for (const s of evicted) {
      const last = await s.waitFor((e) => e.event === "stream.closed");
      expect(last.data).toEqual({ reason: "too_many_streams", reconnect: false });
      await s.ended; // the server ended it
    }
    // The rest, and the other member's stream, still get their events.
    await put(1, accountEvent(a.id));
    await put(1, accountEvent(b.id));
    for (const s of streams.slice(4)) await s.waitFor((e) => e.event === "account.changed");
    expect((await other.waitFor((e) => e.event === "account.changed")).data).toMatchObject({
      payload: { userId: b.id },
    });
    expect(other.events.some((e) => e.event === "stream.closed")).toBe(false);
    for (const s of evicted) expect(s.events.filter((e) => e.event === "account.changed")).toHaveLength(0);
    await Promise.all([...streams, other].map((s) => s.close()));
  });

  it("60 streams at once from one member with Last-Event-ID: 0 over a long log: at most the cap stay open, none replays the log, another member's stream works throughout (scaled from 300)", async () => {
    const a = await newMember("flood-a");
    const b = await newMember("flood-b");
    await put(REPLAY_MAX * 3, accountEvent(a.id)); // a log longer than any replay may be
    const other = openSse(b.client, "/api/me/events");
    await other.ready;
    const flood = Array.from({ length: 60 }, () => openSse(a.client, "/api/me/events", 0));
    await Promise.all(flood.map((s) => s.ready.catch(() => undefined)));
    // Each flood stream is either closed by the cap (told not to reconnect) or started from a snapshot (stream.reset).
    await until(
      () => flood.every((s) => s.events.some((e) => e.event === "stream.reset" || e.event === "stream.closed")),
      30_000,
      "every flood stream to be reset or closed",
    );
    // None got the backlog: a reset instead of 150 replayed events.
    for (const s of flood) expect(s.events.filter((e) => e.event === "account.changed").length).toBe(0);
    await put(1, accountEvent(b.id));
    expect((await other.waitFor((e) => e.event === "account.changed")).data).toMatchObject({
      payload: { userId: b.id },
    });
    const survivors = flood.filter((s) => !s.events.some((e) => e.event === "stream.closed"));
    expect(survivors.length).toBe(STREAM_CAP);
    await Promise.all([...flood, other].map((s) => s.close()));
  }, 60_000);

  it("a resume within the window and the replay cap replays; one past the cap starts from a snapshot (stream.reset: too_many)", async () => {
    const a = await newMember("replay");
    const [first] = await put(3, accountEvent(a.id));
    const near = openSse(a.client, "/api/me/events", first! - 1);
    expect((await near.waitFor((e) => e.event === "account.changed")).id).toBe(String(first));
    await until(() => near.events.filter((e) => e.event === "account.changed").length === 3, 10_000, "three replayed");
    expect(near.events.some((e) => e.event === "stream.reset")).toBe(false);
    const [from] = await put(REPLAY_MAX + 5, accountEvent(a.id));
    const far = openSse(a.client, "/api/me/events", from! - 1);
    expect((await far.waitFor((e) => e.event === "stream.reset")).data).toEqual({ reason: "too_many" });
    // Live events still come after the reset.
    const [live] = await put(1, accountEvent(a.id));
    expect((await far.waitFor((e) => e.event === "account.changed")).id).toBe(String(live));
    expect(far.events.filter((e) => e.event === "account.changed")).toHaveLength(1);
    await Promise.all([near.close(), far.close()]);
  });

  it("events older than the window are pruned in the background (the newest row stays); a Last-Event-ID among them starts from a snapshot", async () => {
    const a = await newMember("prune");
    // An hour passes: every row so far is older than the window (rows are numbered in the order they are written, so
    // the oldest rows are the lowest numbers), then one new row. Pruning always keeps the log's newest row.
    const old = await put(20, accountEvent(a.id));
    await db.eventLog.updateMany({ data: { createdAt: new Date(Date.now() - 3_600_000) } });
    const [newest] = await put(1);
    // Within a few pruning passes (every quarter of the 10 s window), none of the old rows is left.
    const deadline = Date.now() + 30_000;
    while ((await db.eventLog.count({ where: { seq: { lt: newest } } })) > 0) {
      if (Date.now() > deadline) throw new Error("old events were not pruned");
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(await db.eventLog.count({ where: { seq: newest } })).toBe(1);
    const stale = openSse(a.client, "/api/me/events", old[3]!);
    expect((await stale.waitFor((e) => e.event === "stream.reset")).data).toMatchObject({
      reason: expect.stringMatching(/^(pruned|outside_window)$/),
    });
    const [live] = await put(1, accountEvent(a.id));
    expect((await stale.waitFor((e) => e.event === "account.changed")).id).toBe(String(live));
    await stale.close();
  }, 60_000);

  it("the admin page's tamper check (POST /api/audit/verify) compares the log with the app's witness: an emptied log is reported", async () => {
    const admin = await login("admin@example.com");
    await admin.json("/api/sessions", { method: "POST", body: {} }); // an audit row, so there is a head to anchor
    const deadline = Date.now() + 30_000;
    let verified = await admin.json("/api/audit/verify", { method: "POST" });
    while (typeof verified.body.witness !== "object" || verified.body.witness.count < (await db.auditLog.count())) {
      if (Date.now() > deadline) throw new Error(`the app did not anchor its log: ${JSON.stringify(verified.body)}`);
      await new Promise((r) => setTimeout(r, 250));
      verified = await admin.json("/api/audit/verify", { method: "POST" });
    }
    expect(verified.body).toMatchObject({
      ok: true,
      witness: { kind: "checkpoint", label: expect.stringMatching(/^file /) },
    });
    const rows = await db.auditLog.findMany({ orderBy: { seq: "asc" } });
    const head = await db.auditCheckpoint.findUniqueOrThrow({ where: { id: "head" } });
    await db.$executeRawUnsafe(`DELETE FROM "AuditLog"`);
    await db.$executeRawUnsafe(`DELETE FROM "AuditCheckpoint"`);
    try {
      const tampered = await admin.json("/api/audit/verify", { method: "POST" });
      expect(tampered.body).toMatchObject({ ok: false, problem: expect.stringMatching(/emptied or cut back/) });
      // The app's own anchoring loop notices too, and logs it (it never writes the emptied state to the witness).
      await until(() => /audit_witness_mismatch/.test(app.logs.join("")), 15_000, "the mismatch to be logged");
    } finally {
      for (const r of rows) await db.auditLog.create({ data: { ...r, details: (r.details ?? undefined) as never } });
      await db.auditCheckpoint.create({ data: head });
    }
  }, 60_000);

  it("4,000 session creations from one member are cut off at the limit (429, JSON, Retry-After); renames share the budget; memory comes back", async () => {
    const a = await newMember("burst");
    const b = await newMember("bystander");
    const pid = app.process.pid!;
    const before = rssMb(pid);
    const statuses = new Map<number, number>();
    let retryAfter: string | null = null;
    let body: unknown = null;
    let next = 0;
    const started = Date.now();
    const worker = async () => {
      while (next < 4_000) {
        next++;
        const res = await a.client.fetch("/api/sessions", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{}",
        });
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (res.status === 429 && body === null) {
          retryAfter = res.headers.get("retry-after");
          body = await res.json();
        } else await res.body?.cancel();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const peak = rssMb(pid);
    const created = statuses.get(201) ?? 0;
    // One minute's budget per minute the burst lasted (it crosses into a new one at least once on a busy machine);
    // everything else refused.
    const minutes = Math.floor((Date.now() - started) / 60_000) + 2;
    expect(created).toBeGreaterThanOrEqual(SESSION_WRITES);
    expect(created).toBeLessThanOrEqual(minutes * SESSION_WRITES);
    expect(statuses.get(429)).toBe(4_000 - created);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(body).toMatchObject({ error: { code: "RATE_LIMITED" } });
    expect(await db.chatSession.count({ where: { ownerId: a.id } })).toBe(created);
    expect(await db.auditLog.count({ where: { action: "session.created", actorId: a.id } })).toBe(created);
    // What the burst left behind is bounded by what went through: no event or audit row for a refused request.
    expect(await db.auditLog.count({ where: { actorId: a.id } })).toBe(created);
    // A rename is refused as well once the budget is spent (the same budget); another member is not affected. The
    // burst may have ended in a fresh minute on a busy machine: spend what that minute has left first.
    for (let i = 0; i <= SESSION_WRITES; i++) {
      if ((await a.client.json("/api/sessions", { method: "POST", body: {} })).status === 429) break;
    }
    const [session] = await db.chatSession.findMany({ where: { ownerId: a.id }, take: 1 });
    expect(
      (await a.client.json(`/api/sessions/${session!.id}`, { method: "PATCH", body: { title: "renamed" } })).status,
    ).toBe(429);
    expect((await b.client.json("/api/sessions", { method: "POST", body: {} })).status).toBe(201);
    // Memory after the burst, once the server is idle for a while (figures in the test log and the issue report).
    await new Promise((r) => setTimeout(r, 10_000));
    const after = rssMb(pid);
    // RSS is the process's high-water mark (V8 and malloc keep freed pages), so it is measured here and in
    // bench/bounds.bench.ts and reported, not asserted; what the burst leaves in the database is asserted above.
    console.log(
      `[member-bounds ${kind}] 4,000 session creations in ${((Date.now() - started) / 1000).toFixed(0)} s: ${created} created, RSS ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the end of the burst, ${after.toFixed(0)} MB 10 s later`,
    );
  }, 420_000);
});
