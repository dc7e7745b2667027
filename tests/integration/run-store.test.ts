// The run store (lib/runs/store.ts) on both databases: an outcome commits whole or not at all, and one that loses
// leaves nothing behind — no row, no event number, no audit number (an event number nobody commits is a hole every
// instance's tailer waits for). These are the guarantees the deleted pipelined runner's tests checked
// (sql-runner.test.ts, pipelined-outcomes.test.ts), kept for the one Prisma transaction per outcome.
import pg from "pg";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { useOutcomeFixture } from "../support/outcome-fixture";
import { databaseTargets } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("run store (%s)", (kind, make) => {
  useDatabase(make);
  const t = useOutcomeFixture();
  const { newRun, claim, settle } = t;
  let bus: typeof import("@/lib/events/bus");
  let store: typeof import("@/lib/runs/store");

  beforeAll(async () => {
    bus = await import("@/lib/events/bus");
    store = await import("@/lib/runs/store");
  });

  const auditNumber = async () =>
    kind === "postgres"
      ? Number(
          (await t.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT last_value AS "n" FROM "AuditLog_seq_seq"`))[0]!.n,
        )
      : Number(
          (
            await t.db.$queryRawUnsafe<Array<{ n: bigint }>>(
              `SELECT COALESCE((SELECT "seq" FROM sqlite_sequence WHERE "name" = 'AuditLog'), 0) AS "n"`,
            )
          )[0]!.n,
        );
  const eventNumber = async () => (await t.db.eventLog.aggregate({ _max: { seq: true } }))._max.seq ?? 0;

  it("an outcome that loses (a reused call id, a settled call, an ended run, a stopped run) takes no event or audit numbers: live events are not held up", async () => {
    const ids = await newRun();
    expect(await claim(ids, "once")).toMatchObject({ ok: true });
    expect(await settle(ids, "once")).toMatchObject({ ok: true });
    const auditBefore = await auditNumber();
    const got: Array<{ seq: number; at: number }> = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.type === "probe") got.push({ seq: e.seq, at: Date.now() });
    });
    try {
      const before = await eventNumber();
      expect(await claim(ids, "once")).toEqual({ ok: false, lost: "call" }); // the same id again
      expect(await settle(ids, "once")).toEqual({ ok: false, lost: "call" }); // settled already
      const ended = await newRun();
      await t.db.agentRun.update({ where: { id: ended.runId }, data: { status: "failed" } });
      const end = {
        ...ended,
        message: { append: { role: "assistant" as const, content: "done", runId: ended.runId } },
        audit: [{ action: "run.completed", sessionId: ended.sessionId }],
      };
      expect(await t.recorder.recordOutcome({ ...end, run: { from: ["running"], to: "completed" } })).toEqual({
        ok: false,
        lost: "run",
      });
      await t.db.agentRun.update({ where: { id: ids.runId }, data: { stopRequestedAt: new Date() } });
      expect(await claim(ids, "after-stop")).toEqual({ ok: false, lost: "run" });
      expect(await auditNumber()).toBe(auditBefore);
      const sent = Date.now();
      const probe = await bus.publishEvent({ type: "probe", scope: "session", sessionId: ids.sessionId, payload: {} });
      expect(probe.seq).toBe(before + 1); // no number was taken by the lost outcomes
      await new Promise((r) => setTimeout(r, 2_500));
      expect(got).toHaveLength(1);
      expect(got[0]!.at - sent).toBeLessThan(1_000);
    } finally {
      unsubscribe();
    }
    expect(await t.db.eventLog.count({ where: { sessionId: ids.sessionId, type: "call.updated" } })).toBe(2); // the claim and the result that won
    expect(await t.db.message.count({ where: { sessionId: ids.sessionId } })).toBe(1);
  });

  it("a call id is claimed once: 12 racing claims (two clients on PostgreSQL) have one winner; its result settles once", async () => {
    const ids = await newRun();
    const { createDb } = await import("@/lib/db/client");
    const other = kind === "postgres" ? createDb(process.env.DATABASE_URL!) : null;
    try {
      const claims = Array.from({ length: 12 }, (_, i) =>
        i % 2 === 1 && other
          ? other
              .$transaction(async (tx) => {
                const { insertToolCall } = await import("@/lib/db/tool-calls");
                await insertToolCall({
                  tx: tx as never,
                  ...ids,
                  callId: "race",
                  toolName: "t",
                  argsHash: `h${i}`,
                  status: "running",
                });
                return { ok: true };
              })
              .catch(() => ({ ok: false }))
          : claim(ids, "race"),
      );
      expect((await Promise.all(claims)).filter((r) => r.ok)).toHaveLength(1);
      const settles = await Promise.all(Array.from({ length: 6 }, () => settle(ids, "race")));
      expect(settles.filter((r) => r.ok)).toHaveLength(1);
    } finally {
      await other?.$disconnect();
    }
    expect(await t.db.toolCall.count({ where: { sessionId: ids.sessionId } })).toBe(1);
    expect(await t.db.message.count({ where: { sessionId: ids.sessionId, toolCallId: "race" } })).toBe(1);
  });

  it("a result whose transcript line the database refuses commits nothing: the call stays running, no event, no number", async () => {
    const ids = await newRun();
    expect(await claim(ids, "refused")).toMatchObject({ ok: true });
    const session = await t.db.chatSession.findUniqueOrThrow({ where: { id: ids.sessionId } });
    await t.db.message.create({
      data: { sessionId: ids.sessionId, seq: session.messageSeq + 1, role: "assistant", content: "squatter" },
    });
    const events = await t.db.eventLog.count();
    await expect(settle(ids, "refused")).rejects.toThrow(/unique/i);
    expect(
      (
        await t.db.toolCall.findUniqueOrThrow({
          where: { sessionId_callId: { sessionId: ids.sessionId, callId: "refused" } },
        })
      ).status,
    ).toBe("running");
    expect(await t.db.message.count({ where: { sessionId: ids.sessionId, toolCallId: "refused" } })).toBe(0);
    expect(await t.db.eventLog.count()).toBe(events);
    expect((await t.db.chatSession.findUniqueOrThrow({ where: { id: ids.sessionId } })).messageSeq).toBe(
      session.messageSeq,
    );
  });

  it("a result for a session that is gone commits nothing", async () => {
    const events = await eventNumber();
    const gone = { sessionId: "gone", runId: "gone-run" };
    await expect(
      store
        .runStore()
        .settleCall({ ...gone, line: { append: { role: "tool", content: "{}", toolCallId: "x", runId: gone.runId } } }),
    ).rejects.toThrow();
    expect(await eventNumber()).toBe(events);
    expect(await t.db.message.count({ where: { sessionId: "gone" } })).toBe(0);
  });

  // JSON nested deeper than the sanitiser's recursion (JSON.parse and JSON.stringify take it: an MCP server can
  // return it), a toJSON above a cycle: neither can be stored, and the outcome around them commits nothing.
  it("a result or a turn's end whose line cannot be stored commits nothing, and the next outcome works", async () => {
    const { sanitizeDeep } = await import("@/lib/text-sanitize");
    const nested = (depth: number) => JSON.parse("[".repeat(depth) + "]".repeat(depth)) as unknown;
    const overflows = (value: unknown) => {
      try {
        sanitizeDeep(value);
        return false;
      } catch {
        return true;
      }
    };
    let depth = 1_000;
    while (!overflows({ output: nested(depth) })) depth += 500;
    const cyclic: Record<string, unknown> = { toJSON: () => ({}) };
    cyclic.self = cyclic;
    for (const [i, parts] of [{ status: "ok", output: nested(depth) }, cyclic].entries()) {
      const ids = await newRun();
      const callId = `bad-${i}`;
      expect(await claim(ids, callId)).toMatchObject({ ok: true });
      const events = await t.db.eventLog.count();
      const line = {
        role: "tool" as const,
        content: "{}",
        parts,
        toolCallId: callId,
        toolName: "current_time",
        runId: ids.runId,
      };
      await expect(
        t.recorder.recordOutcome({
          ...ids,
          call: { callId, toolName: "current_time", from: ["running"], to: "done" },
          message: { append: line },
        }),
      ).rejects.toThrow();
      expect(
        (await t.db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId: ids.sessionId, callId } } }))
          .status,
      ).toBe("running");
      expect(await t.db.eventLog.count()).toBe(events);
      expect(await settle(ids, callId)).toMatchObject({ ok: true });
    }
    const ending = await newRun();
    const last = { role: "assistant" as const, content: "bye", parts: cyclic, runId: ending.runId };
    await expect(
      t.recorder.recordOutcome({
        ...ending,
        message: { append: last },
        run: { from: ["running"], to: "completed", owner: t.instance },
      }),
    ).rejects.toThrow();
    expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ending.runId } })).status).toBe("running");
    expect(await t.db.message.count({ where: { sessionId: ending.sessionId } })).toBe(0);
  });

  it("a line's JSON parts and text come back as stored, NUL bytes and lone surrogates cleaned", async () => {
    const ids = await newRun();
    const parts = {
      status: "ok",
      output: { list: [1, "two", null, { deep: true }], text: "a\u0000b \ud800 c" },
      "k\u0000ey": 1,
    };
    const done = await store.runStore().settleCall({
      ...ids,
      line: {
        append: { role: "tool", content: "x\u0000y", parts, toolCallId: "c1", toolName: "t", runId: ids.runId },
      },
    });
    expect(done).toMatchObject({ ok: true });
    const stored = await t.db.message.findFirstOrThrow({ where: { sessionId: ids.sessionId, toolCallId: "c1" } });
    expect(stored.content).toBe("xy");
    expect(stored.parts).toEqual({
      status: "ok",
      output: { list: [1, "two", null, { deep: true }], text: "ab \ufffd c" },
      key: 1,
    });
  });

  it("events handed to the bus after commit reach a subscriber once each, in seq order, with other writers racing", async () => {
    const runs = await Promise.all(Array.from({ length: 20 }, () => newRun()));
    const sessions = new Set(runs.map((r) => r.sessionId));
    const got: number[] = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.sessionId && sessions.has(e.sessionId) && e.type === "call.updated") got.push(e.seq);
    });
    try {
      await Promise.all(
        runs.map(async (ids, i) => {
          expect(await claim(ids, `c${i}`)).toMatchObject({ ok: true });
          expect(await settle(ids, `c${i}`)).toMatchObject({ ok: true });
        }),
      );
      const written = (
        await t.db.eventLog.findMany({
          where: { sessionId: { in: [...sessions] }, type: "call.updated" },
          select: { seq: true },
        })
      ).map((r) => r.seq);
      expect(written).toHaveLength(40);
      await vi.waitFor(() => expect(got).toHaveLength(40), { timeout: 10_000 });
      expect(got).toEqual([...written].sort((a, b) => a - b));
    } finally {
      unsubscribe();
    }
  });

  it("begin: one run holds a session; a second begin loses the session and writes nothing", async () => {
    const sessionId = (await t.db.chatSession.create({ data: { ownerId: t.ownerId } })).id;
    const first = await store.runStore().begin({ sessionId, text: "hello", owner: t.instance, leaseMs: 60_000 });
    expect(first).toMatchObject({ ok: true });
    expect(await store.runStore().begin({ sessionId, text: "again", owner: t.instance, leaseMs: 60_000 })).toEqual({
      ok: false,
      lost: "session",
    });
    expect(await t.db.message.count({ where: { sessionId } })).toBe(1);
    expect(await t.db.agentRun.count({ where: { sessionId } })).toBe(1);
  });

  // The last line's write takes its number and frees the session in one statement (lib/db/messages.ts, releasing);
  // a session that is not the run's (another run holds it) keeps its claim, and the outcome still commits whole.
  it("a turn's end frees its session in the last line's write, and only a session that is still the run's", async () => {
    const sessionId = (await t.db.chatSession.create({ data: { ownerId: t.ownerId } })).id;
    const begun = await store
      .runStore()
      .begin({ sessionId, text: "hello", title: "hello", owner: t.instance, leaseMs: 60_000 });
    if (!begun.ok) throw new Error("begin lost");
    expect(await t.db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({
      activeRunId: begun.runId,
      title: "hello",
      messageSeq: 1,
    });
    const ended = await store.runStore().finish({
      sessionId,
      runId: begun.runId,
      owner: t.instance,
      to: "completed",
      line: { role: "assistant", content: "bye", runId: begun.runId },
    });
    expect(ended).toEqual({ ok: true });
    expect(await t.db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({
      activeRunId: null,
      messageSeq: 2,
    });
    expect(
      (await t.db.message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } })).map((m) => [m.seq, m.content]),
    ).toEqual([
      [1, "hello"],
      [2, "bye"],
    ]);

    const other = await newRun();
    await t.db.chatSession.update({ where: { id: other.sessionId }, data: { activeRunId: "another-run" } });
    const events = await eventNumber();
    expect(
      await store.runStore().finish({
        ...other,
        owner: t.instance,
        to: "completed",
        line: { role: "assistant", content: "bye", runId: other.runId },
      }),
    ).toEqual({ ok: true });
    expect(await t.db.chatSession.findUniqueOrThrow({ where: { id: other.sessionId } })).toMatchObject({
      activeRunId: "another-run",
      messageSeq: 1,
    });
    expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: other.runId } })).status).toBe("completed");
    expect(await eventNumber()).toBeGreaterThan(events);
  });

  it.runIf(kind === "postgres")(
    "a claim that waited for the run's lock sees a call started by the transaction it waited for",
    async () => {
      const ids = await newRun();
      const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await blocker.connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query(`SELECT 1 FROM "AgentRun" WHERE "id" = $1 FOR UPDATE`, [ids.runId]);
        const claiming = claim(ids, "second");
        for (let i = 0; i < 100; i++) {
          const { rows } = await blocker.query(
            `SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "wait_event_type" = 'Lock' AND "datname" = current_database()`,
          );
          if (rows[0].n > 0) break;
          await new Promise((r) => setTimeout(r, 20));
        }
        await blocker.query(
          `INSERT INTO "ToolCall" ("id", "sessionId", "runId", "callId", "toolName", "argsHash", "status", "createdAt", "updatedAt") VALUES ($1, $2, $3, 'first', 'current_time', 'h', 'running', now(), now())`,
          [`tc-${ids.runId}`, ids.sessionId, ids.runId],
        );
        await blocker.query("COMMIT");
        expect(await claiming).toEqual({ ok: false, lost: "run" });
      } finally {
        await blocker.end();
      }
      expect(await t.db.toolCall.count({ where: { sessionId: ids.sessionId, callId: "second" } })).toBe(0);
      expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ids.runId } })).status).toBe("failed");
    },
  );

  // A connection lost while a transaction holds it (a server restart, a killed backend, a session the server ended
  // for a full disk): the outcome fails, the process goes on, and the next outcome works. Prisma's engine gives a
  // transaction's connection back only after a ROLLBACK that succeeded, so each lost one stayed checked out, and
  // after ten (the pool's size) nothing was written until a restart (lib/db/client.ts, ReleasingPool). Twelve here.
  it.runIf(kind === "postgres")(
    "connections lost mid-outcome fail those outcomes, not the process, and do not use up the pool",
    async () => {
      const uncaught: unknown[] = [];
      const onUncaught = (error: unknown) => uncaught.push(error);
      process.on("uncaughtException", onUncaught);
      const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await killer.connect();
      const ids = await newRun();
      const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await blocker.connect();
      try {
        await blocker.query("BEGIN");
        await blocker.query(`SELECT 1 FROM "AgentRun" WHERE "id" = $1 FOR UPDATE`, [ids.runId]);
        for (let k = 0; k < 12; k++) {
          const claiming = claim(ids, `killed-${k}`).then(
            () => null,
            (error: unknown) => error,
          );
          let pid: number | undefined;
          for (let i = 0; i < 250 && !pid; i++) {
            const { rows } = await killer.query(
              `SELECT pid FROM pg_stat_activity WHERE "wait_event_type" = 'Lock' AND "datname" = current_database()`,
            );
            pid = rows[0]?.pid;
            if (!pid) await new Promise((r) => setTimeout(r, 20));
          }
          expect(pid).toBeDefined();
          await killer.query(`SELECT pg_terminate_backend($1)`, [pid]);
          expect(await claiming).toBeTruthy();
        }
        await blocker.query("ROLLBACK");
        for (let i = 0; i < 4; i++) {
          expect(await claim(ids, `after-${i}`)).toMatchObject({ ok: true });
          expect(await settle(ids, `after-${i}`)).toMatchObject({ ok: true });
        }
      } finally {
        process.off("uncaughtException", onUncaught);
        await blocker.end();
        await killer.end();
      }
      expect(uncaught.map(String)).toEqual([]);
      expect(await t.db.toolCall.count({ where: { sessionId: ids.sessionId, callId: { startsWith: "killed" } } })).toBe(
        0,
      );
    },
  );
});
