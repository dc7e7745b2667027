// The audit log is hash-chained: an edited or deleted row is detected. Runs on SQLite, and on PostgreSQL
// when configured, each on its own fresh database.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, newPostgresUrl, prepareDatabase } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("audit chain (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let audit: typeof import("@/lib/db/audit");
  let db: import("@/lib/db/client").Db;

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    audit = await import("@/lib/db/audit");
    db = (await import("@/lib/db/client")).createDb(target.url);
  });

  afterAll(async () => {
    await db?.$disconnect();
    // The next target needs fresh modules: lib/config caches DATABASE_URL on first use.
    vi.resetModules();
    await drop?.();
  });

  it("appends concurrently without forking the chain, and verifies", async () => {
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        audit.appendAudit({ action: "test.event", toolName: `t${i}`, details: { i } }),
      ),
    );
    const result = await audit.verifyAuditChain();
    expect(result).toMatchObject({ ok: true, count: 25, head: { count: 25 } });
  });

  it("detects an edited row", async () => {
    const row = await db.auditLog.findFirstOrThrow({ where: { toolName: "t3" } });
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: "allow" } });
    const result = await audit.verifyAuditChain();
    expect(result).toMatchObject({ ok: false, seq: row.seq });
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: null } });
    expect((await audit.verifyAuditChain()).ok).toBe(true);
  });

  it("detects a deleted row", async () => {
    const rows = await db.auditLog.findMany({ orderBy: { seq: "asc" } });
    await db.auditLog.delete({ where: { seq: rows[10]!.seq } });
    const result = await audit.verifyAuditChain();
    expect(result).toMatchObject({ ok: false, seq: rows[11]!.seq });
  });

  // Issue 12: the chain was keyless, so an attacker with the database could delete a row and recompute it.
  it("a row deleted and the chain recomputed with a keyless hash (or with AUTH_SECRET) does not verify", async () => {
    const { canonicalJson, sha256Hex } = await import("@/lib/canonical-json");
    const { createHmac } = await import("node:crypto");
    type Row = Awaited<ReturnType<typeof db.auditLog.findMany>>[number];
    const body = (r: Row) =>
      canonicalJson({
        at: r.at.toISOString(),
        action: r.action,
        actorId: r.actorId,
        sessionId: r.sessionId,
        toolName: r.toolName,
        callId: r.callId,
        decision: r.decision,
        layer: r.layer,
        rule: r.rule,
        details: r.details ?? null,
      });
    for (const recompute of [
      (prev: string, r: Row) => sha256Hex(prev, body(r)),
      (prev: string, r: Row) =>
        createHmac("sha256", process.env.AUTH_SECRET ?? "toolgate-test-secret-0123456789abcdef")
          .update(`${prev}\n${body(r)}`)
          .digest("hex"),
    ]) {
      const kept = (await db.auditLog.findMany({ orderBy: { seq: "asc" } })).filter((r) => r.toolName !== "t5");
      await db.auditLog.deleteMany({});
      let prev = "0".repeat(64);
      for (const r of kept) {
        const hash = recompute(prev, r);
        await db.auditLog.create({ data: { ...r, details: (r.details ?? undefined) as never, prevHash: prev, hash } });
        prev = hash;
      }
      const result = await audit.verifyAuditChain();
      expect(result.ok).toBe(false);
      expect(result).toMatchObject({ problem: expect.stringMatching(/keyed hash/) });
    }
  });
});

describe.each(targets)("audit checkpoints (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let audit: typeof import("@/lib/db/audit");
  let db: import("@/lib/db/client").Db;
  let url: string;

  beforeAll(async () => {
    vi.resetModules();
    const target = await make();
    drop = target.drop;
    url = target.url;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    audit = await import("@/lib/db/audit");
    db = (await import("@/lib/db/client")).createDb(target.url);
    for (let i = 0; i < 12; i++)
      await audit.appendAudit({
        action: "test.event",
        toolName: `t${i}`,
        details: { i, text: "nul\u0000 and \ud800 lone" },
      });
  });

  afterAll(async () => {
    await db?.$disconnect();
    vi.resetModules();
    await drop?.();
  });

  it("stores text without NUL bytes or lone surrogates and still verifies", async () => {
    const row = await db.auditLog.findFirstOrThrow({ where: { toolName: "t0" } });
    expect((row.details as { text: string }).text).toBe("nul and \ufffd lone");
    expect((await audit.verifyAuditChain()).ok).toBe(true);
  });

  it("cutting off the tail is detected by the signed checkpoint, and by an exported one", async () => {
    const exported = (await audit.exportAuditCheckpoint())!;
    expect(exported).toMatchObject({ count: 12 });
    const last = await db.auditLog.findFirstOrThrow({ orderBy: { seq: "desc" } });
    const { ...saved } = last;
    await db.auditLog.delete({ where: { seq: last.seq } });
    const cut = await audit.verifyAuditChain();
    expect(cut).toMatchObject({ ok: false, problem: expect.stringMatching(/signed checkpoint/) });
    // Also deleting the stored checkpoint does not help, and forging one needs the key.
    const head = await db.auditCheckpoint.findUniqueOrThrow({ where: { id: "head" } });
    await db.auditCheckpoint.delete({ where: { id: "head" } });
    expect(await audit.verifyAuditChain()).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/checkpoint is missing/),
    });
    await db.auditCheckpoint.create({
      data: {
        ...head,
        count: 11,
        seq: last.seq - 1,
        headHash: (await db.auditLog.findFirstOrThrow({ orderBy: { seq: "desc" } })).hash,
      },
    });
    expect(await audit.verifyAuditChain()).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/signature is not valid/),
    });
    await db.auditCheckpoint.update({ where: { id: "head" }, data: head });
    expect(await audit.verifyAuditChain({ checkpoints: [exported] })).toMatchObject({ ok: false });
    await db.auditLog.create({ data: { ...saved, details: (saved.details ?? undefined) as never } });
    expect(await audit.verifyAuditChain({ checkpoints: [exported] })).toMatchObject({ ok: true, count: 12 });
    expect(await audit.verifyAuditChain({ checkpoints: [{ ...exported, signature: "0".repeat(64) }] })).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/exported checkpoint/),
    });
  });

  it("npm run audit:verify exits 0 on an intact log, exports a checkpoint, and exits 1 after a rewrite", async () => {
    const { execFileSync, spawnSync } = await import("node:child_process");
    const fs = await import("node:fs");
    const os = await import("node:os");
    const path = await import("node:path");
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "audit-cp-")), "checkpoints.jsonl");
    const env = { ...process.env, DATABASE_URL: url };
    const out = execFileSync("npm", ["run", "-s", "audit:verify", "--", "--export", file], { env, encoding: "utf8" });
    expect(out).toMatch(/"ok":true/);
    expect(fs.readFileSync(file, "utf8")).toMatch(/"count":12/);
    const row = await db.auditLog.findFirstOrThrow({ where: { toolName: "t4" } });
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: "allow" } });
    const bad = spawnSync("npm", ["run", "-s", "audit:verify", "--", "--checkpoint", file], { env, encoding: "utf8" });
    expect(bad.status).toBe(1);
    expect(bad.stdout).toMatch(/"ok":false/);
  });
});

// Several instances append at once, each from its own connection pool, starting from a log with no head row yet:
// the first appends race for the advisory lock, the later ones lock the head row. No two rows may link to one head.
describe.runIf(Boolean(process.env.TEST_DATABASE_URL_PG))("audit chain across instances (postgres)", () => {
  let drop: (() => Promise<void>) | undefined;
  let audit: typeof import("@/lib/db/audit");
  const clients: Array<import("@/lib/db/client").Db> = [];

  beforeAll(async () => {
    vi.resetModules();
    const target = await newPostgresUrl(process.env.TEST_DATABASE_URL_PG!);
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    audit = await import("@/lib/db/audit");
    const { createDb } = await import("@/lib/db/client");
    for (let i = 0; i < 3; i++) clients.push(createDb(target.url));
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
    vi.resetModules();
    await drop?.();
  });

  it("60 appends from three pools at once, from an empty log, form one chain", async () => {
    const head = async () => clients[0]!.auditCheckpoint.findUnique({ where: { id: "head" } });
    expect(await head()).toBeNull();
    const append = (i: number) =>
      clients[i % 3]!.$transaction(
        async (tx) => audit.insertAuditRow(tx as never, { action: "test.race", toolName: `r${i}`, details: { i } }),
        { maxWait: 20_000, timeout: 20_000 },
      );
    await Promise.all(Array.from({ length: 60 }, (_, i) => append(i)));
    const rows = await clients[0]!.auditLog.findMany({ orderBy: { seq: "asc" }, select: { prevHash: true } });
    expect(new Set(rows.map((r) => r.prevHash)).size).toBe(rows.length);
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: true, count: 60, head: { count: 60 } });
  });

  // The rows' numbers are taken in the statement that locks the head. Taken before the lock is held, an append
  // waiting behind another would hold a number lower than rows the other commits first, and the chain's order
  // (prevHash links) would disagree with the numbers it is verified in.
  it("an append waiting for the head takes no numbers until it holds it, and several rows append as one chain", async () => {
    const { transact } = await import("@/lib/db/client");
    await audit.appendAudit({ action: "test.head" }); // the head row exists (as after the first append)
    const observer = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await observer.connect();
    const sequence = async () =>
      (await observer.query(`SELECT last_value::int AS "n" FROM "AuditLog_seq_seq"`)).rows[0].n as number;
    let locked!: () => void;
    const lockHeld = new Promise<void>((resolve) => (locked = resolve));
    let go!: () => void;
    const proceed = new Promise<void>((resolve) => (go = resolve));
    // The holder locks the head, waits, then appends three rows in its own transaction.
    const holder = transact(async (tx) => {
      await tx.$queryRawUnsafe(`SELECT 1 AS "locked" FROM "AuditCheckpoint" WHERE "id" = 'head' FOR UPDATE`);
      locked();
      await proceed;
      await audit.insertAuditRows(tx, [
        { action: "test.batch", toolName: "b1" },
        { action: "test.batch", toolName: "b2", details: { at: new Date(0) } },
        { action: "test.batch", toolName: "b3" },
      ]);
    });
    try {
      await lockHeld;
      const before = await sequence();
      const waiting = audit.appendAudit({ action: "test.waits", toolName: "w" });
      // Until the append is seen waiting for the row lock, then a while longer.
      let seen = false;
      for (let i = 0; i < 100 && !seen; i++) {
        const { rows } = await observer.query(
          `SELECT count(*)::int AS "n" FROM pg_stat_activity WHERE "wait_event_type" = 'Lock' AND "datname" = current_database()`,
        );
        seen = rows[0].n > 0;
        if (!seen) await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      expect(await sequence()).toBe(before);
      go();
      await holder;
      await waiting;
    } finally {
      go();
      await observer.end();
    }
    const rows = await clients[0]!.auditLog.findMany({
      orderBy: { seq: "asc" },
      select: { seq: true, toolName: true },
    });
    expect(rows.slice(-4).map((r) => r.toolName)).toEqual(["b1", "b2", "b3", "w"]);
    const last = rows.slice(-4).map((r) => r.seq);
    expect(last).toEqual([last[0], last[0]! + 1, last[0]! + 2, last[0]! + 3]);
    expect(await audit.verifyAuditChain()).toMatchObject({
      ok: true,
      count: rows.length,
      head: { count: rows.length, seq: last[3] },
    });
  });
});
