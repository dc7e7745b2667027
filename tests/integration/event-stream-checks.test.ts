// The stream runner (lib/events/sse.ts, lib/events/fan-out.ts) on a real database and the real event bus: a re-check
// that cannot be made closes the stream instead of leaving it open and silent; a revoked claim stops delivery before
// the next event; streams of one claim share one check per event (and all close when it fails); a stream opened with a
// Last-Event-ID gets its backlog before live events, without repeats, and one beyond the log's end (a crash lost its
// tail) does not hide new events; one live event reaches many streams once each,
// and a large fan-out is measured and logged.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbTargets } from "../support/agent-harness";
import { prepareDatabase, resetEventBus } from "../support/databases";
import { sink, until } from "../support/stream-sinks";
import type { LogRecord } from "@/lib/log";

describe.each(dbTargets())("event stream checks (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let sse: typeof import("@/lib/events/sse");
  let bus: typeof import("@/lib/events/bus");
  let logs: LogRecord[] = [];
  let removeSink: () => void;

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    process.env.EVENT_POLL_MS = "600000"; // no safety poll: what arrives here was woken by a publish or a NOTIFY
    resetEventBus();
    sse = await import("@/lib/events/sse");
    bus = await import("@/lib/events/bus");
    removeSink = (await import("@/lib/log")).addLogSink((r) => logs.push(r));
  });
  afterAll(async () => {
    removeSink();
    await drop?.();
  });

  const publish = (sessionId: string) =>
    bus.publishEvent({ type: "call.updated", scope: "session", sessionId, payload: { n: sessionId } });

  it.runIf(_kind === "sqlite")(
    "a fresh stream gets an event committed the moment it says it is connected",
    async () => {
      // The event commits on the "connected" frame itself (synchronously, on a connection of its own), before the
      // stream's next step: were "now" read after that frame, the event would count as past and never be sent.
      const Database = (await import("better-sqlite3")).default;
      const other = new Database(process.env.DATABASE_URL!.replace(/^file:/, ""));
      const s = sink();
      const write = s.write;
      let committed = false;
      s.write = (b) => {
        write(b);
        if (!committed && s.frames.some((f) => f.includes(": connected"))) {
          committed = true;
          other
            .prepare(
              'INSERT INTO "EventLog" ("type", "scope", "sessionId", "payload", "createdAt") VALUES (?, ?, ?, ?, ?)',
            )
            .run("call.updated", "session", "fresh-a", JSON.stringify({ n: "on connect" }), new Date().toISOString());
        }
      };
      const stop = sse.openEventStream({ since: null, visible: (e) => e.sessionId === "fresh-a" }, s);
      try {
        await until(() => committed);
        // A publish of this process wakes the tailer, which reads every event after its cursor (no NOTIFY on SQLite).
        await new Promise((r) => setTimeout(r, 100));
        await publish("fresh-a");
        await until(() => s.frames.filter((f) => f.includes("event: call.updated")).length >= 2, 5_000, "both events");
        expect(s.frames.some((f) => f.includes("on connect"))).toBe(true);
      } finally {
        stop();
        other.close();
      }
    },
  );

  it("a check that throws (the database cannot be read) closes the stream and writes nothing more", async () => {
    let failing = false;
    const s = sink();
    const check = {
      key: "check-a",
      stillAllowed: async () => {
        if (failing) throw new Error("database unreachable");
        return true;
      },
    };
    const stop = sse.openEventStream({ since: null, visible: (e) => e.sessionId === "check-a", check }, s);
    await until(() => s.frames.some((f) => f.includes(": connected")));
    await publish("check-a");
    await until(() => s.frames.some((f) => f.includes("event: call.updated")));
    failing = true;
    const before = s.frames.length;
    await publish("check-a");
    await until(() => s.closed);
    expect(s.frames.length).toBe(before);
    stop();
  });

  it("a claim that stops holding closes the stream before the next event is written", async () => {
    let holds = true;
    const s = sink();
    const stop = sse.openEventStream(
      {
        since: null,
        visible: (e) => e.sessionId === "check-b",
        check: { key: "check-b", stillAllowed: async () => holds },
      },
      s,
    );
    await until(() => s.frames.some((f) => f.includes(": connected")));
    holds = false;
    await publish("check-b");
    await until(() => s.closed);
    expect(s.frames.join("")).not.toContain("event: call.updated");
    stop();
  });

  it("streams of one claim share one check per event; when it fails every one of them closes, and another claim's stream stays", async () => {
    let runs = 0;
    let holds = true;
    const check = { key: "check-shared", stillAllowed: async () => ((runs += 1), holds) };
    const shared = Array.from({ length: 50 }, () => sink());
    const other = sink();
    const stops = shared.map((s) =>
      sse.openEventStream({ since: null, visible: (e) => e.sessionId === "check-d", check }, s),
    );
    stops.push(
      sse.openEventStream(
        {
          since: null,
          visible: (e) => e.sessionId === "check-d",
          check: { key: "check-other", stillAllowed: async () => true },
        },
        other,
      ),
    );
    await until(() => [...shared, other].every((s) => s.frames.some((f) => f.includes(": connected"))));
    const before = runs;
    const row = await publish("check-d");
    await until(() => shared.every((s) => s.frames.some((f) => f.includes(`id: ${row.seq}\n`))));
    expect(runs - before).toBe(1);
    holds = false;
    await publish("check-d");
    await until(() => shared.every((s) => s.closed));
    await until(() => other.frames.filter((f) => f.includes("event: call.updated")).length === 2);
    expect(other.closed).toBe(false);
    stops.forEach((stop) => stop());
  });

  // The tailer reads pages of 500 and stops at a short page: a burst longer than a page must still arrive whole.
  it("a burst of 1,234 events committed at once reaches a subscriber whole and in order", async () => {
    const { insertEvents } = await import("@/lib/db/events");
    const { transact } = await import("@/lib/db/client");
    const got: number[] = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.type === "test.burst") got.push((e.payload as { i: number }).i);
    });
    const events = Array.from({ length: 1_234 }, (_, i) => ({
      type: "test.burst",
      scope: "approvals",
      payload: { i },
    }));
    await transact((tx) => insertEvents({ events, tx }));
    await bus.eventsCommitted();
    await until(() => got.length >= 1_234);
    unsubscribe();
    expect(got).toEqual(events.map((_, i) => i));
  });

  it("Last-Event-ID: the backlog comes first and in order, live events after it, nothing twice", async () => {
    const first = await publish("check-e");
    const second = await publish("check-e");
    const s = sink();
    const stop = sse.openEventStream(
      {
        since: first.seq - 1,
        visible: (e) => e.sessionId === "check-e",
        check: { key: "check-e", stillAllowed: async () => true },
      },
      s,
    );
    const third = await publish("check-e");
    await until(() => s.frames.some((f) => f.includes(`id: ${third.seq}\n`)));
    await new Promise((r) => setTimeout(r, 200));
    const ids = s.frames.flatMap((f) => /^id: (\d+)$/m.exec(f)?.[1] ?? []).map(Number);
    expect(ids).toEqual([first.seq, second.seq, third.seq]);
    stop();
  });

  // A client that saw events the database server then lost (a crash before they reached the disk) comes back with a
  // Last-Event-ID the log has not reached again; the numbers it saw are handed out anew. So does a made-up id.
  it("a Last-Event-ID beyond the log's end is not a reason to skip live events: the stream starts from now", async () => {
    const last = await publish("check-f");
    const s = sink();
    const stop = sse.openEventStream(
      {
        since: last.seq + 50,
        visible: (e) => e.sessionId === "check-f",
        check: { key: "check-f", stillAllowed: async () => true },
      },
      s,
    );
    await until(() => s.frames.some((f) => f.includes(": connected")));
    const next = await publish("check-f");
    await until(() => s.frames.some((f) => f.includes(`id: ${next.seq}\n`)));
    await new Promise((r) => setTimeout(r, 200));
    expect(s.frames.flatMap((f) => /^id: (\d+)$/m.exec(f)?.[1] ?? []).map(Number)).toEqual([next.seq]);
    stop();
  });

  it("one live event reaches 1,200 streams once each, and the fan-out is logged with its stream count", async () => {
    logs = [];
    const sinks = Array.from({ length: 1_200 }, () => sink());
    const stops = sinks.map((s) =>
      sse.openEventStream(
        {
          since: null,
          visible: (e) => e.sessionId === "check-c",
          check: { key: "check-c", stillAllowed: async () => true },
        },
        s,
      ),
    );
    await until(() => sinks.every((s) => s.frames.some((f) => f.includes(": connected"))), 20_000);
    const row = await publish("check-c");
    await until(() => sinks.every((s) => s.frames.some((f) => f.includes(`id: ${row.seq}\n`))), 20_000);
    for (const s of sinks) expect(s.frames.filter((f) => f.includes(`id: ${row.seq}\n`))).toHaveLength(1);
    await until(() => logs.some((r) => r.event === "event_fanout" && r.seq === row.seq));
    const logged = logs.find((r) => r.event === "event_fanout" && r.seq === row.seq)!;
    expect(logged.streams).toBe(1_200);
    expect(typeof logged.ms).toBe("number");
    stops.forEach((stop) => stop());
  });
});
