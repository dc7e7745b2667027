// Attacks on the pipelined outcome (lib/runs/recorder.ts write, lib/db/sql.ts transactSql) on PostgreSQL: what a
// lost outcome may leave behind outside its rolled-back transaction, and what a lost connection may do to the
// process.
import pg from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { useOutcomeFixture } from "../support/outcome-fixture";
import { newPostgresUrl } from "../support/databases";

describe.runIf(Boolean(process.env.TEST_DATABASE_URL_PG))("pipelined outcomes (postgres)", () => {
  useDatabase(() => newPostgresUrl(process.env.TEST_DATABASE_URL_PG!));
  const t = useOutcomeFixture();
  const { newRun, claim } = t;
  let bus: typeof import("@/lib/events/bus");

  beforeAll(async () => {
    bus = await import("@/lib/events/bus");
  });

  // The event log's numbers come from a sequence, which a rollback does not give back: a row inserted and rolled
  // back leaves a hole the tailer waits up to GAP_WAIT_MS for (lib/events/bus.ts), and every live stream of every
  // session on every instance stalls that long. A lost outcome must therefore not take event numbers: a reused call
  // id (a hostile model can send one as often as it likes) or a claim after a Stop is refused, not a 2 s stall.
  it("an outcome that loses (a reused call id, a settled call, an ended run, a stopped run) takes no event or audit numbers: live events are not held up", async () => {
    const ids = await newRun();
    expect(await claim(ids, "once")).toMatchObject({ ok: true });
    expect(await t.settle(ids, "once")).toMatchObject({ ok: true });
    const auditNumber = async () => Number((await t.db.$queryRawUnsafe<Array<{ n: bigint }>>(`SELECT last_value AS "n" FROM "AuditLog_seq_seq"`))[0]!.n);
    const auditBefore = await auditNumber();
    const got: Array<{ seq: number; at: number }> = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.type === "probe") got.push({ seq: e.seq, at: Date.now() });
    });
    try {
      const before = (await t.db.eventLog.aggregate({ _max: { seq: true } }))._max.seq ?? 0;
      expect(await claim(ids, "once")).toEqual({ ok: false, lost: "call" }); // the same id again
      expect(await t.settle(ids, "once")).toEqual({ ok: false, lost: "call" }); // settled already
      const ended = await newRun();
      await t.db.agentRun.update({ where: { id: ended.runId }, data: { status: "failed" } });
      const end = { ...ended, message: { append: { role: "assistant" as const, content: "done", runId: ended.runId } }, audit: [{ action: "run.completed", sessionId: ended.sessionId }] };
      expect(await t.recorder.recordOutcome({ ...end, run: { from: ["running"], to: "completed" } })).toEqual({ ok: false, lost: "run" });
      await t.db.agentRun.update({ where: { id: ids.runId }, data: { stopRequestedAt: new Date() } });
      expect(await claim(ids, "after-stop")).toEqual({ ok: false, lost: "run" });
      expect(await auditNumber()).toBe(auditBefore);
      const sent = Date.now();
      const probe = await bus.publishEvent({ type: "probe", scope: "session", sessionId: ids.sessionId, payload: {} });
      // No number was taken by the two lost outcomes: the next event follows the last one.
      expect(probe.seq).toBe(before + 1);
      await new Promise((r) => setTimeout(r, 2_500));
      expect(got).toHaveLength(1);
      expect(got[0]!.at - sent).toBeLessThan(1_000);
    } finally {
      unsubscribe();
    }
    expect(await t.db.eventLog.count({ where: { sessionId: ids.sessionId, type: "call.updated" } })).toBe(2); // the claim and the result that won
  });

  // A connection lost while a transaction holds it (the server restarted, an admin or a pooler killed the backend)
  // with statements still on the wire: the transaction fails, and the process goes on. A checked-out pg client has
  // no "error" listener of the pool's, so its socket error would be thrown as an uncaught exception (a crash).
  it("a connection lost mid-pipeline fails its transaction, not the process, and the pool goes on", async () => {
    const { transactSql } = await import("@/lib/db/sql");
    const uncaught: unknown[] = [];
    const onUncaught = (error: unknown) => uncaught.push(error);
    process.on("uncaughtException", onUncaught);
    const killer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await killer.connect();
    try {
      const failed = await transactSql(async (tx) => {
        const [backend] = await tx.rows<{ pid: number }>(`SELECT pg_backend_pid() AS "pid"`);
        const slow = tx.rows(`SELECT pg_sleep(2) AS "slept"`);
        const behind = tx.rows(`SELECT 2 AS "n"`);
        slow.catch(() => undefined);
        behind.catch(() => undefined);
        await new Promise((r) => setTimeout(r, 200));
        await killer.query(`SELECT pg_terminate_backend($1)`, [backend!.pid]);
        return Promise.all([slow, behind]);
      }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(String(failed)).toMatch(/terminat/);
      await new Promise((r) => setTimeout(r, 300));
      for (let i = 0; i < 12; i++) expect(await transactSql((tx) => tx.rows(`SELECT 1 AS "n"`))).toEqual([{ n: 1 }]);
    } finally {
      process.off("uncaughtException", onUncaught);
      await killer.end();
    }
    expect(uncaught.map(String)).toEqual([]);
  });

  // A claim checks, under the run row's lock, that no other call of the run is still running (a lost result). A
  // statement reads with the snapshot it started with: had the check been the locking statement itself, a call
  // started by the transaction it waited for would be invisible to it, and two calls of one run would run at once.
  it("a claim that waited for the run's lock sees a call started by the transaction it waited for", async () => {
    const ids = await newRun();
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "AgentRun" WHERE "id" = $1 FOR UPDATE`, [ids.runId]);
      const claiming = claim(ids, "second");
      for (let i = 0; i < 100; i++) {
        const { rows } = await blocker.query(`SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "wait_event_type" = 'Lock' AND "datname" = current_database()`);
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
  });

  // A database whose migrations did not run to the end (no toolgate_lost): every claim is refused by the database
  // itself, even one that would win, so nothing is recorded as started and nothing runs (fail closed).
  it("without the lost-step function (migration not applied) no claim is recorded: the outcome fails, nothing is written", async () => {
    const ids = await newRun();
    await t.db.$executeRawUnsafe(`ALTER FUNCTION "toolgate_lost"(text) RENAME TO "toolgate_lost_away"`);
    try {
      await expect(claim(ids, "fresh")).rejects.toThrow(/toolgate_lost/);
    } finally {
      await t.db.$executeRawUnsafe(`ALTER FUNCTION "toolgate_lost_away"(text) RENAME TO "toolgate_lost"`);
    }
    expect(await t.db.toolCall.count({ where: { sessionId: ids.sessionId } })).toBe(0);
    expect(await t.db.auditLog.count({ where: { sessionId: ids.sessionId } })).toBe(0);
    expect(await claim(ids, "fresh")).toMatchObject({ ok: true });
  });

  // A call's result goes out with its commit behind it, before any of its answers is read (recorder.ts). What the
  // database refuses among them must still roll the whole result back: here the line's number is already taken.
  it("a result whose transcript line the database refuses commits nothing, though its commit was already sent", async () => {
    const ids = await newRun();
    expect(await claim(ids, "refused")).toMatchObject({ ok: true });
    const session = await t.db.chatSession.findUniqueOrThrow({ where: { id: ids.sessionId } });
    await t.db.message.create({ data: { sessionId: ids.sessionId, seq: session.messageSeq + 1, role: "assistant", content: "squatter" } });
    const events = await t.db.eventLog.count();
    await expect(t.settle(ids, "refused")).rejects.toThrow(/unique/i);
    expect((await t.db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId: ids.sessionId, callId: "refused" } } })).status).toBe("running");
    expect(await t.db.message.count({ where: { sessionId: ids.sessionId, toolCallId: "refused" } })).toBe(0);
    expect(await t.db.eventLog.count()).toBe(events);
    expect((await t.db.chatSession.findUniqueOrThrow({ where: { id: ids.sessionId } })).messageSeq).toBe(session.messageSeq);
  });

  // The same for a line whose session is gone: it must fail in the database, not only in the function that reads
  // its answer (which, pipelined, may read it after the commit went out).
  it("a line for a session that is gone fails its statement in the database, so a commit sent behind it rolls back", async () => {
    const { transactSql } = await import("@/lib/db/sql");
    const { appendMessageTx } = await import("@/lib/db/messages");
    const events = await t.db.eventLog.count();
    const outcome = transactSql(async (tx) => {
      appendMessageTx({ tx, sessionId: "gone", message: { role: "tool", content: "{}" } }).catch(() => undefined);
      await tx.write(`INSERT INTO "EventLog" ("type", "scope", "payload", "createdAt") VALUES ('probe', 'session', '{}'::jsonb, now())`);
      return "committed";
    });
    await expect(outcome).rejects.toThrow(/seq/);
    expect(await t.db.eventLog.count()).toBe(events);
  });

  // A value that cannot be bound fails its statement before it is sent: the database never sees it, so nothing there
  // aborts the transaction. A result's commit is asked for without reading the answers, so it must be refused here.
  // Values: JSON nested deeper than the sanitiser's recursion (JSON.parse and JSON.stringify take it: an MCP server can
  // return it), and a toJSON above a cycle (JSON.stringify never walks the cycle, the sanitiser does). Found by a
  // review helper: the call moved to done with its event and without its line, the run completed without its last one.
  it("a result or a turn's end whose line cannot be bound commits nothing, though nothing reached the database to fail", async () => {
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
    const deep = { status: "ok", output: nested(depth) };
    expect(() => JSON.stringify(deep)).not.toThrow();
    const ids = await newRun();
    expect(await claim(ids, "deep")).toMatchObject({ ok: true });
    const events = await t.db.eventLog.count();
    const line = { role: "tool" as const, content: "{}", parts: deep, toolCallId: "deep", toolName: "current_time", runId: ids.runId };
    await expect(t.recorder.recordOutcome({ ...ids, call: { callId: "deep", toolName: "current_time", from: ["running"], to: "done" }, message: { append: line } })).rejects.toThrow();
    expect((await t.db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId: ids.sessionId, callId: "deep" } } })).status).toBe("running");
    expect(await t.db.eventLog.count()).toBe(events);

    const ending = await newRun();
    const cyclic: Record<string, unknown> = { toJSON: () => ({}) };
    cyclic.self = cyclic;
    const last = { role: "assistant" as const, content: "bye", parts: cyclic, runId: ending.runId };
    await expect(t.recorder.recordOutcome({ ...ending, message: { append: last }, run: { from: ["running"], to: "completed", owner: t.instance } })).rejects.toThrow();
    expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ending.runId } })).status).toBe("running");
    expect(await t.db.message.count({ where: { sessionId: ending.sessionId } })).toBe(0);
    expect(await t.db.eventLog.count()).toBe(events);
  });

  // The same class, one level down: values pg itself turns into text while sending (the elements of an array) fail
  // there without the database seeing the statement. Before, the commit behind kept the other writes, and the pooled
  // connection then refused that statement's text for good ("prepared statement … does not exist"). Found by review.
  it("a value pg cannot send commits nothing and leaves no connection that refuses the statement later", async () => {
    const { transactSql } = await import("@/lib/db/sql");
    await t.db.$executeRawUnsafe(`CREATE TABLE IF NOT EXISTS "UnsentProbe" ("x" text)`);
    const throwing = new (class {
      toJSON(): never {
        throw new Error("no JSON for this");
      }
    })();
    for (const bad of [[{ n: 1n }], [throwing]]) {
      const outcome = transactSql(async (sql) => {
        await sql.write(`INSERT INTO "UnsentProbe" ("x") VALUES ($1)`, ["kept?"]);
        await sql.write(`SELECT $1::text[] AS "a"`, [bad]);
      });
      await expect(outcome).rejects.toThrow();
      expect(await t.db.$queryRawUnsafe(`SELECT "x" FROM "UnsentProbe"`)).toEqual([]);
    }
    const text = `SELECT $1::text[] AS "b"`;
    expect(await transactSql((sql) => sql.rows(text, [["ok"]]))).toEqual([{ b: ["ok"] }]);
    await expect(transactSql((sql) => sql.rows(text, [[{ n: 1n }]]))).rejects.toThrow();
    for (let i = 0; i < 12; i++) expect(await transactSql((sql) => sql.rows(text, [["ok"]]))).toEqual([{ b: ["ok"] }]);
  });

  // A turn's end has no audit row, so it too commits behind its statements: a lost result found there (a call of
  // the run still running) is learned from the commit's answer and still fails the run, required or not.
  it("a turn's end committed behind its statements still finds a lost result and fails the run", async () => {
    for (const required of [true, false]) {
      const ids = await newRun();
      expect(await claim(ids, "unsettled")).toMatchObject({ ok: true });
      const end = { ...ids, message: { append: { role: "assistant" as const, content: "bye", runId: ids.runId } } };
      expect(await t.recorder.recordOutcome({ ...end, run: { from: ["running"], to: "completed", owner: t.instance, ...(required ? {} : { required: false }) } })).toEqual({ ok: false, lost: "run" });
      expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ids.runId } })).status).toBe("failed");
      expect(await t.db.message.count({ where: { sessionId: ids.sessionId, role: "assistant", content: "bye" } })).toBe(0);
    }
  });

  // An optional step's answer is awaited before the outcome goes on (to know whether to tell its event). When an
  // earlier statement failed, that answer is only "current transaction is aborted": the failure reported must be
  // the first one, what actually went wrong (a lock timeout here), as for required steps.
  it("a failure before an optional step is reported as itself, not as the aborted transaction it left", async () => {
    const ids = await newRun();
    const name = (await t.db.$queryRawUnsafe<Array<{ d: string }>>(`SELECT current_database() AS "d"`))[0]!.d;
    await t.db.$executeRawUnsafe(`ALTER DATABASE "${name}" SET lock_timeout = '300ms'`);
    const pools = (globalThis as unknown as { toolgatePgPools?: Map<string, pg.Pool> }).toolgatePgPools ?? new Map<string, pg.Pool>();
    await pools.get(process.env.DATABASE_URL!)?.end(); // new connections take the setting
    pools.delete(process.env.DATABASE_URL!);
    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query(`SELECT 1 FROM "AgentRun" WHERE "id" = $1 FOR UPDATE`, [ids.runId]);
      const failed = await t.recorder.recordOutcome({ ...ids, run: { from: ["running"], to: "failed", error: "crashed", required: false } }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(String(failed)).toMatch(/lock timeout/);
    } finally {
      await blocker.query("ROLLBACK");
      await blocker.end();
      await t.db.$executeRawUnsafe(`ALTER DATABASE "${name}" RESET lock_timeout`);
      await pools.get(process.env.DATABASE_URL!)?.end();
      pools.delete(process.env.DATABASE_URL!);
    }
  });
});
