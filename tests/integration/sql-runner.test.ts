// lib/db/sql.ts runs the hot path's SQL on both databases: on PostgreSQL through a `pg` pool of its own, on SQLite
// (and inside a Prisma transaction) through Prisma's raw queries. What it writes must read back through Prisma
// exactly as Prisma's own writes do, whatever the process's time zone; its transactions must be all or nothing;
// text the databases cannot hold is cleaned as on every other path; and the conditional statements stay
// exactly-once when two pools race.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { databaseTargets } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("SQL runner (%s)", (kind, make) => {
  useDatabase(make);
  let sql: typeof import("@/lib/db/sql");
  let messages: typeof import("@/lib/db/messages");
  let calls: typeof import("@/lib/db/tool-calls");
  let events: typeof import("@/lib/db/events");
  let db: import("@/lib/db/client").Db;
  let sessionId: string;
  let runId: string;
  const tz = process.env.TZ;

  beforeAll(async () => {
    sql = await import("@/lib/db/sql");
    messages = await import("@/lib/db/messages");
    calls = await import("@/lib/db/tool-calls");
    events = await import("@/lib/db/events");
    db = (await import("@/lib/db/client")).getDb();
    const owner = await db.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
    sessionId = (await db.chatSession.create({ data: { ownerId: owner.id } })).id;
    runId = (await db.agentRun.create({ data: { sessionId, status: "running" } })).id;
  });

  afterAll(() => {
    process.env.TZ = tz;
  });

  it("times written far from UTC read back through Prisma as the same instant", async () => {
    for (const zone of ["Pacific/Kiritimati", "America/Los_Angeles"]) {
      process.env.TZ = zone; // Node applies a changed TZ to Date at once
      const before = Date.now();
      const line = await messages.appendMessage({ sessionId, message: { role: "user", content: `from ${zone}` } });
      const after = Date.now();
      const stored = await db.message.findUniqueOrThrow({ where: { id: line.id } });
      expect(stored.createdAt.getTime()).toBe(line.createdAt.getTime());
      expect(stored.createdAt.getTime()).toBeGreaterThanOrEqual(before);
      expect(stored.createdAt.getTime()).toBeLessThanOrEqual(after);
    }
    process.env.TZ = tz;
  });

  it("a line's JSON parts, nulls and text come back as Prisma reads them, NUL bytes and lone surrogates cleaned", async () => {
    const parts = { status: "ok", output: { list: [1, "two", null, { deep: true }], text: "a\u0000b \ud800 c" }, "k\u0000ey": 1 };
    const line = await messages.appendMessage({ sessionId, message: { role: "tool", content: "x\u0000y", parts, toolCallId: "c1", toolName: "t", runId } });
    const stored = await db.message.findUniqueOrThrow({ where: { id: line.id } });
    expect(stored.content).toBe("xy");
    expect(stored.parts).toEqual({ status: "ok", output: { list: [1, "two", null, { deep: true }], text: "ab \ufffd c" }, key: 1 });
    expect(line.parts).toEqual(stored.parts);
    expect(line.seq).toBe(stored.seq);
    const bare = await messages.appendMessage({ sessionId, message: { role: "system", content: "no parts" } });
    expect((await db.message.findUniqueOrThrow({ where: { id: bare.id } })).parts).toBeNull();
    expect(bare.toolCallId).toBeNull();
  });

  it("events handed to the bus after commit reach a subscriber once each, in seq order, with other writers racing", async () => {
    const bus = await import("@/lib/events/bus");
    const got: number[] = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.sessionId === sessionId && e.type === "race") got.push(e.seq);
    });
    try {
      const written: number[] = [];
      const committed = async (i: number) => {
        const rows = await sql.transactSql((tx) => events.insertEvents({ tx, events: [0, 1].map((k) => ({ type: "race", scope: "session", sessionId, payload: { i, k } })) }));
        written.push(...rows.map((r) => r.seq));
        expect(rows.map((r) => r.seq)).toEqual([...rows.map((r) => r.seq)].sort((a, b) => a - b));
        await bus.eventsCommitted(rows);
      };
      const published = async (i: number) => written.push((await bus.publishEvent({ type: "race", scope: "session", sessionId, payload: { i } })).seq);
      await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 3 === 0 ? published(i) : committed(i))));
      await vi.waitFor(() => expect(got).toHaveLength(written.length), { timeout: 10_000 });
      expect(got).toEqual([...written].sort((a, b) => a - b));
    } finally {
      unsubscribe();
    }
  });

  it("ids have Prisma's shape and do not repeat", () => {
    const ids = Array.from({ length: 20_000 }, () => sql.newId());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids.slice(0, 50)) expect(id).toMatch(/^c[0-9a-z]{24,}$/);
  });

  it("a transaction that throws leaves nothing behind, and the runner is usable afterwards", async () => {
    const count = () => db.message.count({ where: { sessionId } });
    const seq = async () => (await db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).messageSeq;
    const [n, s] = [await count(), await seq()];
    await expect(
      sql.transactSql(async (tx) => {
        await messages.appendMessageTx({ tx, sessionId, message: { role: "user", content: "rolled back" } });
        await events.insertEvents({ tx, events: [{ type: "t", scope: "session", sessionId, payload: { a: 1 } }] });
        throw new Error("boom");
      }),
    ).rejects.toThrow("boom");
    expect([await count(), await seq()]).toEqual([n, s]);
    // A statement the database refuses (no such session) fails its transaction the same way.
    await expect(sql.transactSql((tx) => messages.appendMessageTx({ tx, sessionId: "no-such-session", message: { role: "user", content: "x" } }))).rejects.toThrow();
    const line = await messages.appendMessage({ sessionId, message: { role: "user", content: "after" } });
    expect(line.seq).toBe(s + 1);
  });

  // Statements are sent without waiting for the previous answer (PostgreSQL pipelines them), so a step can still be
  // going on when its transaction ends. Sent then, it would run on its own, committed, or on the connection's next
  // borrower.
  it("a statement asked for after its transaction ended (committed or rolled back) is refused, never run outside it", async () => {
    const late: Array<Promise<unknown>> = [];
    const lateInsert = (tx: import("@/lib/db/sql").Sql) => {
      const insert = new Promise((r) => setTimeout(r, 30)).then(() => events.insertEvents({ tx, events: [{ type: "late", scope: "session", sessionId, payload: {} }] }));
      insert.catch(() => undefined);
      late.push(insert);
    };
    await expect(
      sql.transactSql(async (tx) => {
        await tx.rows(`SELECT 1 AS "n"`);
        lateInsert(tx);
        throw new Error("fails while a step is still going on");
      }),
    ).rejects.toThrow("fails while");
    await sql.transactSql(async (tx) => lateInsert(tx), { commit: "deferred" });
    await sql.transactSql(async (tx) => lateInsert(tx));
    for (const insert of late) await expect(insert).rejects.toThrow("after its transaction ended");
    expect(await db.eventLog.count({ where: { type: "late" } })).toBe(0);
  });

  it("a write nobody reads (sent with the commit) that fails fails its transaction, whole", async () => {
    const content = "beside a failing write";
    await expect(
      sql.transactSql(async (tx) => {
        await messages.appendMessageTx({ tx, sessionId, message: { role: "user", content } });
        await tx.write(`INSERT INTO "Message" ("id", "sessionId") VALUES ($1, $2)`, ["no-such", "no-such-session"]);
      }),
    ).rejects.toThrow();
    expect(await db.message.count({ where: { content } })).toBe(0);
    expect(await sql.transactSql((tx) => tx.rows<{ n: number }>(`SELECT 1 AS "n"`))).toEqual([{ n: 1 }]);
  });

  it("the runner's transactions and Prisma's queue behind each other, and one that fails lets the next through", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const prismaTx = db.$transaction(
      async (tx) => {
        await tx.chatSession.update({ where: { id: sessionId }, data: { title: "held" } });
        await held;
        await tx.chatSession.update({ where: { id: sessionId }, data: { title: "held, then released" } });
      },
      { timeout: 20_000 },
    );
    await new Promise((r) => setTimeout(r, 100));
    let appended = false;
    const append = messages.appendMessage({ sessionId, message: { role: "user", content: "queued behind a transaction" } }).then((line) => ((appended = true), line));
    await new Promise((r) => setTimeout(r, 300));
    expect(appended).toBe(false); // it waits for the open transaction (SQLite: the adapter's lock; PostgreSQL: the session row)
    release();
    await prismaTx;
    expect((await append).content).toBe("queued behind a transaction");
    await expect(sql.transactSql(async () => Promise.reject(new Error("fails first")))).rejects.toThrow("fails first");
    await db.$transaction((tx) => tx.chatSession.update({ where: { id: sessionId }, data: { title: "after a failure" } }), { maxWait: 5_000 });
    expect((await db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).title).toBe("after a failure");
  });

  it("inside a Prisma transaction the SQL commits and rolls back with the model writes", async () => {
    const title = "mixed";
    await expect(
      db.$transaction(async (tx) => {
        await tx.chatSession.update({ where: { id: sessionId }, data: { title } });
        await messages.appendMessageTx({ tx: sql.sqlOf(tx as never), sessionId, message: { role: "user", content: "mixed, rolled back" } });
        throw new Error("undo");
      }),
    ).rejects.toThrow("undo");
    expect(await db.message.count({ where: { sessionId, content: "mixed, rolled back" } })).toBe(0);
    expect((await db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).title).not.toBe(title);
  });

  it("two copies of the module in one process (Next.js bundles, reloaded modules) share the pool and its named statements", async () => {
    const first = sql;
    vi.resetModules();
    const second = await import("@/lib/db/sql");
    for (let i = 0; i < 4; i += 1) {
      // Each copy names statements the other never saw; a name must still mean one text on every connection.
      expect(await first.transactSql((tx) => tx.rows<{ n: number }>(`SELECT ${i} AS "n"`))).toEqual([{ n: i }]);
      expect(await second.transactSql((tx) => tx.rows<{ n: number }>(`SELECT ${i + 10} AS "n", 'second' AS "copy"`))).toEqual([{ n: i + 10, copy: "second" }]);
    }
  });

  it("a deferred commit skips only the disk flush, of its own transaction: all or nothing as before, and every later transaction flushes", async () => {
    const setting = (tx: import("@/lib/db/sql").Sql) =>
      tx.rows<{ v: string }>(kind === "postgres" ? `SELECT current_setting('synchronous_commit') AS "v"` : `SELECT 'as configured' AS "v"`).then((r) => r[0]!.v);
    // Ten at once take ten pooled connections: none may keep the setting for the transaction that gets it next.
    const inside = await Promise.all(Array.from({ length: 10 }, () => sql.transactSql(setting, { commit: "deferred" })));
    const after = await Promise.all(Array.from({ length: 10 }, () => sql.transactSql(setting)));
    if (kind === "postgres") {
      expect(new Set(inside)).toEqual(new Set(["off"]));
      expect(new Set(after)).toEqual(new Set(["on"]));
    }
    await expect(
      sql.transactSql(
        async (tx) => {
          await messages.appendMessageTx({ tx, sessionId, message: { role: "user", content: "deferred, rolled back" } });
          throw new Error("undo");
        },
        { commit: "deferred" },
      ),
    ).rejects.toThrow("undo");
    expect(await db.message.count({ where: { sessionId, content: "deferred, rolled back" } })).toBe(0);
    const kept = await sql.transactSql((tx) => messages.appendMessageTx({ tx, sessionId, message: { role: "user", content: "deferred, kept" } }), { commit: "deferred" });
    expect((await db.message.findUniqueOrThrow({ where: { id: kept.id } })).content).toBe("deferred, kept");
  });

  it("the recorder flushes every outcome that decides, authorises or moves on, and defers only a call's result", async () => {
    const { commitOf, recordOutcome } = await import("@/lib/runs/recorder");
    const base = { sessionId, runId };
    const settle = { callId: "c", toolName: "t", from: ["running" as const], to: "done" as const };
    const line = { append: { role: "tool" as const, content: "{}", toolCallId: "c", toolName: "t", runId } };
    const entry = { action: "tool.call", sessionId, decision: "allow" };
    expect(commitOf({ ...base, call: settle, message: line })).toBe("deferred");
    expect(commitOf({ ...base, call: { ...settle, to: "failed" }, message: line })).toBe("deferred");
    expect(commitOf({ ...base, call: { ...settle, to: "stopped" }, message: line })).toBe("deferred");
    // A step's model message proves the run is still this instance's: it flushes (one per step, not per call).
    expect(commitOf({ ...base, message: line, run: { from: ["running"], to: "running" } })).toBe("flush");
    expect(commitOf({ ...base, message: line })).toBe("flush");
    expect(commitOf({ ...base, call: { ...settle, from: ["approved"], to: "running" } })).toBe("flush");
    expect(commitOf({ ...base, call: { ...settle, from: ["pending"], to: "stopped" } })).toBe("flush");
    expect(commitOf({ ...base, call: settle, message: line, audit: [] })).toBe("deferred");
    expect(commitOf({ ...base, call: { ...settle, from: ["new"], to: "running" } })).toBe("flush");
    expect(commitOf({ ...base, call: { ...settle, from: ["new"], to: "stopped" }, message: line })).toBe("flush");
    expect(commitOf({ ...base, call: settle, message: line, audit: [entry] })).toBe("flush");
    expect(commitOf({ ...base, call: settle, consume: { approvalId: "a" } })).toBe("flush");
    expect(commitOf({ ...base, message: line, run: { from: ["running"], to: "completed" } })).toBe("flush");
    expect(commitOf({ ...base, run: { from: ["running"], to: "waiting_approval" } })).toBe("flush");
    if (kind !== "postgres") return;
    // The chain's head exists from the first audit row on (before it, appends take a slower path, locked otherwise).
    await (await import("@/lib/db/audit")).appendAudit({ action: "test.first" });
    // What reaches the server: the claim's transaction begins plainly, the result's turns the flush off. And how
    // often each transaction waits for the server, read off its connection's socket: a write after the server's
    // last answer arrived starts a round trip (the statements of a batch are written in one go, sql.ts).
    const pg = (await import("pg")).default;
    type Wire = { transaction?: number; answered: boolean };
    type Client = { connection: { stream: { write: (...a: unknown[]) => boolean; on: (e: string, f: () => void) => void } } };
    const sent: string[] = [];
    const trips: number[] = [];
    const wires = new Map<Client, Wire>();
    const restore: Array<() => void> = [];
    const query = pg.Client.prototype.query;
    const spy = vi.spyOn(pg.Client.prototype, "query").mockImplementation(function (this: Client, ...args: unknown[]) {
      const text = typeof args[0] === "string" ? args[0] : ((args[0] as { text?: string }).text ?? "");
      let wire = wires.get(this);
      if (!wire) {
        const w: Wire = { answered: true };
        wires.set(this, (wire = w));
        const stream = this.connection.stream;
        const write = stream.write;
        stream.write = (...a: unknown[]) => {
          if (w.transaction !== undefined && w.answered) trips[w.transaction]! += 1;
          w.answered = false;
          return write.apply(stream, a);
        };
        stream.on("data", () => (w.answered = true));
        restore.push(() => (stream.write = write));
      }
      if (text.startsWith("BEGIN")) {
        sent.push(text);
        wire.transaction = trips.push(0) - 1;
      }
      const result = (query as (...a: unknown[]) => unknown).apply(this, args);
      if (text === "COMMIT" || text === "ROLLBACK") wire.transaction = undefined;
      return result;
    } as never);
    try {
      const callId = "commit-kinds";
      expect(await recordOutcome({ ...base, call: { callId, toolName: "t", argsHash: "h", from: ["new"], to: "running" }, audit: [{ ...entry, callId }] })).toMatchObject({ ok: true });
      expect(await recordOutcome({ ...base, call: { callId, toolName: "t", from: ["running"], to: "done" }, message: { append: { ...line.append, toolCallId: callId } } })).toMatchObject({ ok: true });
    } finally {
      spy.mockRestore();
      for (const undo of restore) undo();
    }
    expect(sent).toEqual(["BEGIN", "BEGIN; SET LOCAL synchronous_commit TO OFF"]);
    // The claim: its checks, the call's row, the event and the audit head's lock together (a step that loses fails
    // in the database, so what follows it does not run: recorder.ts); then the audit row and the head with the
    // commit. The result: its statements and the commit together (nothing it sends waits for an answer).
    expect(trips, JSON.stringify(trips)).toEqual([2, 1]);
  });

  it("a call id is claimed once: 12 racing claims (two pools on PostgreSQL) have one winner; moves are conditional", async () => {
    const { createDb } = await import("@/lib/db/client");
    const other = kind === "postgres" ? createDb(process.env.DATABASE_URL!) : db;
    try {
      const claim = (i: number) =>
        i % 2 === 0
          ? sql.transactSql((tx) => calls.insertToolCall({ tx, sessionId, runId, callId: "race", toolName: "t", argsHash: `h${i}`, status: "running" }))
          : other.$transaction((tx) => calls.insertToolCall({ tx: tx as never, sessionId, runId, callId: "race", toolName: "t", argsHash: `h${i}`, status: "running" }));
      const won = await Promise.all(Array.from({ length: 12 }, (_, i) => claim(i)));
      expect(won.filter(Boolean)).toHaveLength(1);
      const moves = await Promise.all(
        Array.from({ length: 6 }, () => sql.transactSql((tx) => calls.moveToolCall({ tx, sessionId, callId: "race", from: ["running"], to: "done", data: { finishedAt: new Date(), pid: 42 } }))),
      );
      expect(moves.filter(Boolean)).toHaveLength(1);
      const row = await db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId, callId: "race" } } });
      expect(row).toMatchObject({ status: "done", pid: 42 });
      expect(row.finishedAt).toBeInstanceOf(Date);
      expect(row.updatedAt.getTime()).toBeGreaterThanOrEqual(row.createdAt.getTime());
    } finally {
      if (other !== db) await other.$disconnect();
    }
  });
});
