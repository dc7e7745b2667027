// Attacks on the per-claim fan-out of live events (lib/events/fan-out.ts, lib/events/sse.ts). In process on a real
// database and the real bus: a check that hangs or a stream that throws must not silence other groups, and a group
// whose check hangs fails closed; groups and buffers do not outlive their streams. Over real HTTP against the app's
// own server: members never see another member's session or the owners' inbox, revocations (role removal,
// password change, deactivation) end every stream of the claim before the next event, including one still replaying
// its backlog, and replays under concurrent publishes come in order without repeats.
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbTargets } from "../support/agent-harness";
import { prepareDatabase, resetEventBus } from "../support/databases";
import { sink, until, type Sink } from "../support/stream-sinks";
import type { AppEvent } from "@/lib/events/bus";

const idsOf = (s: Sink) => s.frames.flatMap((f) => /^id: (\d+)$/m.exec(f)?.[1] ?? []).map(Number);
const connected = (s: Sink) => s.frames.some((f) => f.includes(": connected"));
const groupsMap = () => (globalThis as unknown as { toolgateStreamGroups?: Map<string, unknown> }).toolgateStreamGroups;

describe.each(dbTargets())("fan-out faults in process (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let sse: typeof import("@/lib/events/sse");
  let bus: typeof import("@/lib/events/bus");

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    resetEventBus();
    sse = await import("@/lib/events/sse");
    bus = await import("@/lib/events/bus");
  });
  afterAll(async () => {
    await drop?.();
  });

  const publish = (sessionId: string) =>
    bus.publishEvent({ type: "call.updated", scope: "session", sessionId, payload: { n: sessionId } });
  const open = (
    key: string,
    stillAllowed: () => Promise<boolean>,
    session: string,
    since: number | null = null,
    s = sink(),
  ) => {
    const stop = sse.openEventStream(
      { since, visible: (e) => e.sessionId === session, check: { key, stillAllowed } },
      s,
    );
    return { s, stop };
  };

  it("a check that hangs stalls only its own group, and the group fails closed instead of staying open and silent", async () => {
    let hang = false;
    const hung = open("hang-a", () => (hang ? new Promise<boolean>(() => undefined) : Promise.resolve(true)), "hang");
    const other = open("hang-other", async () => true, "hang");
    await until(() => connected(hung.s) && connected(other.s));
    hang = true;
    const first = await publish("hang");
    await until(() => idsOf(other.s).includes(first.seq), 5_000, "the other group's event");
    const second = await publish("hang");
    await until(() => idsOf(other.s).includes(second.seq), 5_000, "the other group's second event");
    expect(idsOf(hung.s)).toEqual([]);
    // A new stream of the same claim joins the hung group: it must not be kept open and silent for ever either.
    const late = open("hang-a", () => new Promise<boolean>(() => undefined), "hang", first.seq - 1);
    await until(() => hung.s.closed && late.s.closed, 15_000, "the hung group to close");
    expect(idsOf(late.s)).toEqual([]);
    expect(other.s.closed).toBe(false);
    [hung, other, late].forEach((x) => x.stop());
  }, 30_000);

  it("a check that throws synchronously closes its group rather than dropping the event silently", async () => {
    let boom = false;
    const s = open(
      "sync-throw",
      (() => {
        if (boom) throw new Error("sync failure");
        return Promise.resolve(true);
      }) as () => Promise<boolean>,
      "sync-throw",
    );
    await until(() => connected(s.s));
    boom = true;
    await publish("sync-throw");
    await until(() => s.s.closed, 5_000, "the stream to close");
    expect(idsOf(s.s)).toEqual([]);
    s.stop();
  });

  it("a stream whose visibility test throws is dropped alone: every other group still gets the event", async () => {
    const bad = sink();
    const badStop = sse.openEventStream(
      {
        since: null,
        visible: () => {
          throw new Error("bad filter");
        },
        check: { key: "vis-bad", stillAllowed: async () => true },
      },
      bad,
    );
    const good = Array.from({ length: 5 }, (_, i) => open(`vis-good-${i}`, async () => true, "vis"));
    await until(() => connected(bad) && good.every((g) => connected(g.s)));
    const row = await publish("vis");
    await until(() => good.every((g) => idsOf(g.s).includes(row.seq)), 5_000, "every good stream to get the event");
    await until(() => bad.closed, 5_000, "the throwing stream to close");
    badStop();
    good.forEach((g) => g.stop());
  });

  it("a stream closed in the middle of a fan-out (its write throws, another is closed by it) does not stop the others", async () => {
    const key = "mid-close";
    const streams = Array.from({ length: 20 }, () => open(key, async () => true, "mid"));
    await until(() => streams.every((x) => connected(x.s)));
    // Stream 3 throws on the next event; stream 5's write closes stream 10 (the client of 10 goes away meanwhile).
    streams[3]!.s.write = () => {
      throw new Error("socket reset");
    };
    const original5 = streams[5]!.s.write;
    streams[5]!.s.write = (b) => {
      original5(b);
      streams[10]!.stop();
    };
    const row = await publish("mid");
    const expected = streams.filter((_, i) => i !== 3 && i !== 10);
    await until(() => expected.every((x) => idsOf(x.s).includes(row.seq)), 5_000, "the event on every other stream");
    const next = await publish("mid");
    await until(
      () => expected.every((x) => idsOf(x.s).includes(next.seq)),
      5_000,
      "the next event on every other stream",
    );
    for (const x of expected) expect(idsOf(x.s)).toEqual([row.seq, next.seq]);
    expect(idsOf(streams[10]!.s)).not.toContain(next.seq);
    streams.forEach((x) => x.stop());
  });

  it("a client that stops reading is cut off alone (past 1 MiB unsent, as the lean handler does): the rest of its group gets every event", async () => {
    const key = "slow";
    const slow = sink();
    let unsent = 0;
    const write = slow.write;
    slow.write = (b) => {
      if (unsent > 1024 * 1024) throw new Error("client too slow");
      unsent += b.length; // never drained: the client reads nothing
      write(b);
    };
    const slowStream = open(key, async () => true, "slow", null, slow);
    const fast = Array.from({ length: 3 }, () => open(key, async () => true, "slow"));
    await until(() => connected(slow) && fast.every((x) => connected(x.s)));
    const rows: AppEvent[] = [];
    for (let i = 0; i < 6; i++)
      rows.push(
        await bus.publishEvent({
          type: "call.updated",
          scope: "session",
          sessionId: "slow",
          payload: { pad: "x".repeat(300_000) },
        }),
      );
    const seqs = rows.map((r) => r.seq);
    await until(() => fast.every((x) => idsOf(x.s).includes(seqs.at(-1)!)), 10_000, "every event on the fast streams");
    for (const x of fast) expect(idsOf(x.s)).toEqual(seqs);
    expect(idsOf(slow).length).toBeLessThan(seqs.length);
    expect(groupsMap()!.has(key)).toBe(true);
    slowStream.stop();
    fast.forEach((x) => x.stop());
    expect(groupsMap()!.has(key)).toBe(false);
  });

  it("groups and replay buffers do not outlive their streams: closed during the replay, after a failed check, or by the client", async () => {
    const base = groupsMap()?.size ?? 0;
    for (let i = 0; i < 30; i++) await publish("leak");
    let allow = true;
    const many = Array.from({ length: 200 }, (_, i) => open(`leak-${i % 40}`, async () => allow, "leak", 0));
    // Half of them leave while they still read their backlog.
    many.slice(0, 100).forEach((x) => x.stop());
    await until(() => many.slice(100).every((x) => idsOf(x.s).length >= 30), 15_000, "the backlogs");
    expect(groupsMap()!.size).toBeGreaterThan(base);
    allow = false;
    await publish("leak");
    await until(() => many.slice(100).every((x) => x.s.closed), 10_000, "every stream to close");
    expect(groupsMap()!.size).toBe(base);
    for (const x of many.slice(0, 100)) expect(idsOf(x.s)).toEqual([]);
    many.forEach((x) => x.stop());
    expect(groupsMap()!.size).toBe(base);
  }, 30_000);

  it("events published concurrently reach every stream of a group once each and in order, also across a Last-Event-ID join", async () => {
    const key = "order";
    const mark = (await publish("order-mark")).seq;
    const early = Array.from({ length: 10 }, () => open(key, async () => true, "order"));
    await until(() => early.every((x) => connected(x.s)));
    const rows: AppEvent[] = [];
    const burst = (n: number) =>
      Promise.all(Array.from({ length: n }, () => publish("order").then((r) => rows.push(r))));
    const firstBurst = burst(40);
    const joiners: Array<ReturnType<typeof open>> = [];
    await new Promise((r) => setTimeout(r, 5));
    joiners.push(open(key, async () => true, "order", mark));
    await firstBurst;
    joiners.push(open(key, async () => true, "order", rows.sort((a, b) => a.seq - b.seq)[10]!.seq));
    await burst(40);
    const all = rows.map((r) => r.seq).sort((a, b) => a - b);
    await until(
      () => [...early, ...joiners].every((x) => idsOf(x.s).includes(all.at(-1)!)),
      15_000,
      "the last event everywhere",
    );
    await new Promise((r) => setTimeout(r, 100));
    for (const x of early) expect(idsOf(x.s)).toEqual(all);
    expect(idsOf(joiners[0]!.s)).toEqual(all);
    expect(idsOf(joiners[1]!.s)).toEqual(all.filter((seq) => seq > all[10]!));
    [...early, ...joiners].forEach((x) => x.stop());
  }, 30_000);
});

/** GET on its own socket; `ended` resolves when the server ends it. */
function rawStream(url: string, headers: Record<string, string>) {
  let body = "";
  let done!: () => void;
  const ended = new Promise<void>((r) => (done = r));
  let res: http.IncomingMessage | undefined;
  const req = http.get(url, { headers: { accept: "text/event-stream", ...headers }, agent: false }, (r) => {
    res = r;
    r.setEncoding("utf8");
    r.on("data", (c: string) => (body += c));
    r.on("end", done);
    r.on("close", done);
    r.on("error", done);
  });
  req.on("error", done);
  req.on("close", done);
  return {
    get body() {
      return body;
    },
    get status() {
      return res?.statusCode ?? 0;
    },
    ended,
    ids: () => [...body.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])),
    events: () =>
      [...body.matchAll(/^data: (.*)$/gm)].map(
        (m) => JSON.parse(m[1]!) as { seq: number; type: string; sessionId: string | null; payload: unknown },
      ),
    close: () => req.destroy(),
  };
}
const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));
const endsWithin = (p: Promise<void>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`${what} still open after ${ms} ms`)), ms)),
  ]);

describe("fan-out attacks over HTTP (the app's server, lean streams)", () => {
  let app: import("../support/app-server").RunningApp;
  let db: import("@/lib/db/client").Db;
  let dropDb: (() => Promise<void>) | undefined;
  let admin: import("../support/http-client").HttpClient;
  const base = () => app.url;
  const mk = async (tag: string, roles: string[]) => {
    const { hashPassword } = await import("@/lib/auth/password");
    const { DEMO_PASSWORD } = await import("../support/app-server");
    const email = `fanout-${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
    const user = await db.user.create({
      data: {
        email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        roles: { create: roles.map((role) => ({ role })) },
      },
    });
    return { id: user.id, email };
  };
  const login = async (email: string) => (await import("../support/http-client")).signedIn(base(), email);
  const cookie = async (client: import("../support/http-client").HttpClient) => ({
    cookie: (await import("../support/approvals-helpers")).cookieOf(client),
  });
  /** Writes events straight into the event log, as another instance would (on PostgreSQL the table's trigger wakes the app's tailer). */
  const put = async (
    events: Array<{
      type: string;
      scope: "approvals" | "session" | "account";
      sessionId?: string | null;
      payload: unknown;
    }>,
  ) => {
    const rows = [];
    for (const e of events)
      rows.push(
        await db.eventLog.create({
          data: { type: e.type, scope: e.scope, sessionId: e.sessionId ?? null, payload: e.payload as never },
        }),
      );
    return rows.map((r) => r.seq);
  };

  beforeAll(async () => {
    const { startApp } = await import("../support/app-server");
    const { newPostgresUrl, newSqliteUrl } = await import("../support/databases");
    let url: string;
    if (process.env.TEST_DATABASE_URL_PG) {
      const pg = await newPostgresUrl(process.env.TEST_DATABASE_URL_PG);
      url = pg.url;
      dropDb = pg.drop;
    } else url = newSqliteUrl();
    prepareDatabase(url);
    app = await startApp({ databaseUrl: url, env: { EVENT_POLL_MS: "200" } });
    db = (await import("@/lib/db/client")).createDb(url);
    admin = await login("admin@example.com");
  }, 180_000);
  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    await dropDb?.();
  });

  it("members see only their own sessions and account; owners' approvals never reach a member, however many streams of each claim are open", async () => {
    const [ua, ub, uo] = await Promise.all([mk("a", ["member"]), mk("b", ["member"]), mk("o", ["member", "owner"])]);
    const [a, b, o] = await Promise.all([login(ua.email), login(ub.email), login(uo.email)]);
    const sa = (await a.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const sb = (await b.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    // Another member's session is refused outright, on both the tab and the session stream.
    for (const path of [`/api/sessions/${sb}/events`, `/api/me/events?session=${sb}`, "/api/approvals/stream"]) {
      const refused = rawStream(`${base()}${path}`, await cookie(a));
      await refused.ended;
      expect([403, 404]).toContain(refused.status);
    }
    const streamsOf = async (
      client: import("../support/http-client").HttpClient,
      session: string,
      approvals = false,
    ) => {
      const h = await cookie(client);
      return [
        ...Array.from({ length: 3 }, () => rawStream(`${base()}/api/me/events?session=${session}`, h)),
        ...Array.from({ length: 2 }, () => rawStream(`${base()}/api/sessions/${session}/events`, h)),
        rawStream(`${base()}/api/me/events`, h),
        ...(approvals ? [rawStream(`${base()}/api/approvals/stream`, h)] : []),
      ];
    };
    const so = (await o.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const [A, B, O] = await Promise.all([streamsOf(a, sa), streamsOf(b, sb), streamsOf(o, so, true)]);
    const all = [...A, ...B, ...O];
    await until(() => all.every((s) => s.body.includes(": connected")), 10_000, "every stream to open");
    const seqs = await put([
      { type: "call.updated", scope: "session", sessionId: sb, payload: { secret: "b-session" } },
      { type: "approval.requested", scope: "approvals", sessionId: sb, payload: { secret: "b-approval" } },
      { type: "account.changed", scope: "account", payload: { userId: ub.id, change: "roles" } },
      { type: "call.updated", scope: "session", sessionId: sa, payload: { secret: "a-session" } },
      { type: "account.changed", scope: "account", payload: { userId: ua.id, change: "teams" } },
      { type: "account.changed", scope: "account", payload: { userId: null, change: "mode-grants" } },
    ]);
    const last = seqs.at(-1)!;
    await until(
      () => [A[0]!, A[5]!, B[0]!, B[5]!, O[0]!, O[5]!].every((s) => s.ids().includes(last)),
      10_000,
      "the broadcast on the tab streams",
    );
    await settle(300);
    const [bSession, bApproval, bAccount, aSession, aAccount, everyone] = seqs;
    for (const s of A) for (const seq of [bSession, bApproval, bAccount]) expect(s.ids()).not.toContain(seq);
    for (const s of B) for (const seq of [aSession, aAccount]) expect(s.ids()).not.toContain(seq);
    expect(A.slice(0, 3).map((s) => s.ids())).toEqual(Array(3).fill([aSession, aAccount, everyone]));
    expect(A.slice(3, 5).map((s) => s.ids())).toEqual(Array(2).fill([aSession]));
    expect(A[5]!.ids()).toEqual([aAccount, everyone]);
    // B sees its own session's approval on its session streams (it is that session's event), never an inbox of others.
    expect(B.slice(0, 3).map((s) => s.ids())).toEqual(Array(3).fill([bSession, bApproval, bAccount, everyone]));
    // The owner's tab gets the inbox, never a member's session events.
    expect(O[5]!.ids()).toEqual([bApproval, everyone]);
    expect(O[6]!.ids()).toEqual([bApproval]);
    for (const s of all) expect(new Set(s.ids()).size).toBe(s.ids().length);
    all.forEach((s) => s.close());
  }, 60_000);

  it("role removal, password change and deactivation end every stream of the claim before the next event, one still replaying its backlog too", async () => {
    const [uo, ua, ud] = await Promise.all([
      mk("rev-o", ["member", "owner"]),
      mk("rev-a", ["member"]),
      mk("rev-d", ["member"]),
    ]);
    const [o, a, d] = await Promise.all([login(uo.email), login(ua.email), login(ud.email)]);
    // A long backlog of the owner's inbox so that one stream is still replaying when the role goes.
    const backlogFrom = (await put([{ type: "noise", scope: "session", sessionId: "none", payload: {} }]))[0]!;
    await put(
      Array.from({ length: 300 }, (_, i) => ({
        type: "approval.requested",
        scope: "approvals" as const,
        sessionId: `x${i}`,
        payload: { i, pad: "p".repeat(200) },
      })),
    );
    const ho = await cookie(o);
    const owner = [
      rawStream(`${base()}/api/approvals/stream`, ho),
      rawStream(`${base()}/api/me/events`, ho),
      rawStream(`${base()}/api/approvals/stream`, ho),
    ];
    const member = [
      rawStream(`${base()}/api/me/events`, await cookie(a)),
      rawStream(`${base()}/api/me/events`, await cookie(a)),
    ];
    const deact = [
      rawStream(`${base()}/api/me/events`, await cookie(d)),
      rawStream(`${base()}/api/me/events`, await cookie(d)),
    ];
    await until(
      () => [...owner, ...member, ...deact].every((s) => s.body.includes(": connected")),
      10_000,
      "every stream to open",
    );
    const replaying = rawStream(`${base()}/api/approvals/stream`, { ...ho, "last-event-id": String(backlogFrom) });
    const [removed, changed, deactivated] = await Promise.all([
      admin.json(`/api/admin/users/${uo.id}/roles`, { method: "POST", body: { role: "owner", action: "remove" } }),
      a.json("/api/me/password", {
        method: "POST",
        body: { currentPassword: "toolgate-demo", newPassword: "another-password-456" },
      }),
      admin.json(`/api/admin/users/${ud.id}/active`, { method: "POST", body: { active: false } }),
    ]);
    expect([removed.status, changed.status, deactivated.status]).toEqual([200, 200, 200]);
    // The next events after the revocations: an approval and a broadcast. None of the revoked streams may get them.
    const [approval, broadcast] = await put([
      { type: "approval.requested", scope: "approvals", sessionId: "after", payload: { secret: "after-revocation" } },
      { type: "account.changed", scope: "account", payload: { userId: null, change: "mode-grants" } },
    ]);
    const revoked = [...owner, replaying, ...member, ...deact];
    await Promise.all(revoked.map((s, i) => endsWithin(s.ended, 10_000, `revoked stream ${i}`)));
    for (const s of revoked) {
      expect(s.ids()).not.toContain(approval);
      expect(s.ids()).not.toContain(broadcast);
    }
    // What the replaying stream did get is in order and without repeats.
    const got = replaying.ids();
    expect(got).toEqual([...new Set(got)].sort((x, y) => x - y));
    expect((await o.json("/api/me")).status).toBe(401);
  }, 60_000);

  it("reconnects with Last-Event-ID during a burst of publishes: every event once, in order, across the connections", async () => {
    const uo = await mk("burst", ["member", "owner"]);
    const o = await login(uo.email);
    const h = await cookie(o);
    const first = rawStream(`${base()}/api/approvals/stream`, h);
    await until(() => first.body.includes(": connected"), 10_000, "the stream to open");
    const published: number[] = [];
    const burst = (async () => {
      for (let i = 0; i < 20; i++)
        published.push(
          ...(await put(
            Array.from({ length: 5 }, (_, j) => ({
              type: "approval.requested",
              scope: "approvals" as const,
              sessionId: `burst-${i}-${j}`,
              payload: { i, j },
            })),
          )),
        );
    })();
    const seen: number[] = [];
    let current = first;
    for (let hop = 0; hop < 4; hop++) {
      await until(() => current.ids().length > 0 || published.length >= 100, 10_000, "some events");
      await settle(30);
      current.close();
      const ids = current.ids();
      seen.push(...ids);
      current = rawStream(`${base()}/api/approvals/stream`, {
        ...h,
        "last-event-id": String(seen.at(-1) ?? published[0]! - 1),
      });
      await until(() => current.body.includes(": connected"), 10_000, "the reconnect");
    }
    await burst;
    await until(
      () => current.ids().includes(published.at(-1)!) || seen.includes(published.at(-1)!),
      10_000,
      "the last event",
    );
    await settle(100);
    seen.push(...current.ids());
    current.close();
    const mine = seen.filter((s) => published.includes(s));
    expect(mine).toEqual(published.slice().sort((x, y) => x - y));
  }, 60_000);
});
