// Issue 29, finding 1: the audit log anchored outside the database. Each attack below verified as intact before
// (the chain and its signed head live in the database the attacker rewrites: `verifyAuditChain()` alone answers ok),
// and is reported against the witness. On SQLite, and on PostgreSQL when configured, each on a fresh database.
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, prepareDatabase } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("audit witness (%s)", (kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let url: string;
  let audit: typeof import("@/lib/db/audit");
  let anchor: typeof import("@/lib/audit/anchor");
  let fileWitness: typeof import("@/lib/audit/witness-file");
  let db: import("@/lib/db/client").Db;
  let witnessFile: string;
  let witness: import("@/lib/audit/witness").AuditWitness;

  type Row = Awaited<ReturnType<typeof db.auditLog.findMany>>[number];
  type Head = NonNullable<Awaited<ReturnType<typeof db.auditCheckpoint.findUnique>>>;
  const snapshot = async () => ({
    rows: await db.auditLog.findMany({ orderBy: { seq: "asc" } }),
    head: await db.auditCheckpoint.findUnique({ where: { id: "head" } }),
  });
  /** What an attacker with the database (and without the audit key) does: put back rows and a head row saved earlier. */
  const putBack = async ({ rows, head }: { rows: Row[]; head: Head | null }) => {
    await db.auditLog.deleteMany({});
    await db.auditCheckpoint.deleteMany({});
    for (const r of rows) await db.auditLog.create({ data: { ...r, details: (r.details ?? undefined) as never } });
    if (head) await db.auditCheckpoint.create({ data: head });
  };
  /** Numbers the next rows as if the rows after `seq` had never been written (an attacker resetting the sequence). */
  const resetSequence = async (seq: number) => {
    if (kind === "sqlite")
      await db.$executeRawUnsafe(`UPDATE sqlite_sequence SET seq = ${seq} WHERE name = 'AuditLog'`);
    else await db.$executeRawUnsafe(`SELECT setval(pg_get_serial_sequence('"AuditLog"', 'seq'), ${seq})`);
  };
  const append = async (n: number, tag: string) => {
    for (let i = 0; i < n; i++)
      await audit.appendAudit({ action: "test.event", toolName: `${tag}${i}`, details: { i } });
  };

  beforeAll(async () => {
    vi.resetModules();
    const target = await make();
    drop = target.drop;
    url = target.url;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    witnessFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "audit-witness-")), "witness.jsonl");
    process.env.AUDIT_WITNESS = `file:${witnessFile}`;
    audit = await import("@/lib/db/audit");
    anchor = await import("@/lib/audit/anchor");
    fileWitness = await import("@/lib/audit/witness-file");
    db = (await import("@/lib/db/client")).createDb(target.url);
    witness = new fileWitness.FileWitness(witnessFile);
  });

  afterAll(async () => {
    await db?.$disconnect();
    delete process.env.AUDIT_WITNESS;
    vi.resetModules();
    await drop?.();
  });

  it("anchors only what the database committed: a batch is one entry, an open (then failed) transaction is not witnessed", async () => {
    const before = await db.auditLog.count();
    await append(6, "a");
    const first = await anchor.anchorAudit(witness);
    expect(first).toMatchObject({ written: { kind: "checkpoint", count: before + 6 } });
    expect(await anchor.anchorAudit(witness)).toEqual({ unchanged: true });
    // A transaction that has written audit rows but not committed, while anchoring runs: the witness gets the
    // committed head only. Then the transaction fails (as in a crash): nothing is reported.
    const other = (await import("@/lib/db/client")).createDb(url);
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    let inserted!: () => void;
    const wrote = new Promise<void>((r) => (inserted = r));
    const open = other
      .$transaction(
        async (tx) => {
          await audit.insertAuditRows(tx as never, [{ action: "test.uncommitted" }, { action: "test.uncommitted" }]);
          inserted();
          await hold;
          throw new Error("crash before commit");
        },
        { maxWait: 20_000, timeout: 20_000 },
      )
      .catch((error: Error) => error);
    await wrote;
    if (kind === "postgres") {
      // PostgreSQL reads past the open transaction; SQLite's single writer would make the anchor wait (not tested there).
      expect(await anchor.anchorAudit(witness)).toEqual({ unchanged: true });
    }
    release();
    expect(await open).toMatchObject({ message: "crash before commit" });
    await other.$disconnect();
    expect(await anchor.anchorAudit(witness)).toEqual({ unchanged: true });
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({
      ok: true,
      count: before + 6,
      witness: { count: before + 6 },
    });
    // Committed rows the witness has not heard of yet (a crash before the next batch) are no alarm either.
    await append(3, "b");
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({
      ok: true,
      count: before + 9,
      witness: { count: before + 6 },
    });
    expect((await anchor.anchorAudit(witness)) as object).toHaveProperty("written");
  });

  it("attack 1: DELETE FROM AuditLog; DELETE FROM AuditCheckpoint is reported, and is never witnessed", async () => {
    const saved = await snapshot();
    const lines = fs.readFileSync(witnessFile, "utf8");
    await db.$executeRawUnsafe(`DELETE FROM "AuditLog"`);
    await db.$executeRawUnsafe(`DELETE FROM "AuditCheckpoint"`);
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: true, count: 0 }); // what today's check answers
    const result = await anchor.verifyAuditWithWitness({ witness });
    expect(result).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/no longer holds it: the log was emptied or cut back/),
    });
    expect(await anchor.anchorAudit(witness)).toMatchObject({ mismatch: expect.stringMatching(/the log is empty/) });
    // New rows on the emptied log do not make it pass, and are not witnessed.
    await append(2, "after-empty");
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: false });
    expect(await anchor.anchorAudit(witness)).toHaveProperty("mismatch");
    expect(fs.readFileSync(witnessFile, "utf8")).toBe(lines);
    await putBack(saved);
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true });
  });

  it("attack 2: the log cut back to an older signed checkpoint, with that checkpoint's row put back, is reported", async () => {
    const older = await snapshot();
    await append(5, "c");
    expect(await anchor.anchorAudit(witness)).toHaveProperty("written");
    const saved = await snapshot();
    await db.auditLog.deleteMany({ where: { seq: { gt: older.head!.seq } } });
    await db.auditCheckpoint.update({ where: { id: "head" }, data: older.head! });
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: true, count: older.rows.length }); // today's check
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({
      ok: false,
      seq: saved.head!.seq,
      problem: expect.stringMatching(/cut back/),
    });
    expect(await anchor.anchorAudit(witness)).toMatchObject({ mismatch: expect.stringMatching(/fewer than/) });
    await putBack(saved);
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true });
  });

  it("attack 3: the head row replaced by an older one and the log carried on from it (past the witness's count) is reported", async () => {
    const older = await snapshot();
    await append(3, "d");
    expect(await anchor.anchorAudit(witness)).toHaveProperty("written");
    const saved = await snapshot();
    // Only the head row replaced: the chain's own check already sees that.
    await db.auditCheckpoint.update({ where: { id: "head" }, data: older.head! });
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: false });
    // Replaced, the rows after it removed, the numbering reset, and the application carrying on: the log grows past
    // the witnessed row again, on another branch. Today's check answers ok.
    await db.auditLog.deleteMany({ where: { seq: { gt: older.head!.seq } } });
    await resetSequence(older.head!.seq);
    await append(6, "fork");
    expect(await db.auditLog.count()).toBeGreaterThan(saved.rows.length);
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: true });
    const result = await anchor.verifyAuditWithWitness({ witness });
    expect(result).toMatchObject({
      ok: false,
      seq: saved.head!.seq,
      problem: expect.stringMatching(/a different one: the log was rewritten/),
    });
    expect(await anchor.anchorAudit(witness)).toMatchObject({ mismatch: expect.stringMatching(/different one/) });
    await putBack(saved);
    await resetSequence(saved.head!.seq);
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true });
  });

  it.runIf(kind === "sqlite")(
    "names a head only once it is synced to disk: a reader holding the WAL's checkpoint back defers the entry",
    async () => {
      // SQLite commits without an fsync (WAL, synchronous=NORMAL): the anchor syncs through a checkpoint first, and
      // frames a reader's snapshot keeps from being copied back are not synced, so the witness waits for the next pass.
      const Database = (await import("better-sqlite3")).default;
      const reader = new Database(url.replace(/^file:/, ""));
      try {
        reader.exec("BEGIN");
        reader.prepare('SELECT COUNT(*) FROM "AuditLog"').get();
        await append(2, "s");
        expect(await anchor.anchorAudit(witness)).toEqual({ notSynced: true });
        reader.exec("COMMIT");
        expect(await anchor.anchorAudit(witness)).toHaveProperty("written");
      } finally {
        reader.close();
      }
    },
  );

  it.runIf(kind === "sqlite")(
    "a run of passes that cannot sync is logged once as stalled, and its end once as resumed",
    async () => {
      const { addLogSink } = await import("@/lib/log");
      const events: string[] = [];
      const removeSink = addLogSink((record) => void events.push(record.event));
      const Database = (await import("better-sqlite3")).default;
      const reader = new Database(url.replace(/^file:/, ""));
      try {
        reader.exec("BEGIN");
        reader.prepare('SELECT COUNT(*) FROM "AuditLog"').get();
        await append(1, "stall");
        for (let pass = 0; pass < anchor.STALLED_PASSES * 2; pass++)
          anchor.reportStalled(await anchor.anchorAudit(witness));
        expect(events.filter((e) => e === "audit_witness_stalled")).toHaveLength(1);
        expect(events).not.toContain("audit_witness_resumed");
        reader.exec("COMMIT");
        const resumed = await anchor.anchorAudit(witness);
        expect(resumed).toHaveProperty("written");
        anchor.reportStalled(resumed);
        anchor.reportStalled(await anchor.anchorAudit(witness));
        expect(events.filter((e) => e === "audit_witness_resumed")).toHaveLength(1);
      } finally {
        removeSink();
        reader.close();
      }
    },
  );

  it("a forged or edited witness line does not count; a torn last line is skipped", async () => {
    const latest = (await witness.latest((await import("@/lib/audit/witness")).auditLogId()))!;
    fs.appendFileSync(
      witnessFile,
      `${JSON.stringify({ ...latest, count: latest.count + 50, seq: latest.seq + 50 })}\n{"v":1,"logId":"${latest.logId}","kin`,
    );
    expect(await witness.latest(latest.logId)).toEqual(latest);
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true });
    fs.appendFileSync(witnessFile, "\n");
  });

  it("after a restore from a backup: reported until re-anchored; the re-anchor is audited and witnessed, and refused over a broken chain", async () => {
    const backup = await snapshot();
    await append(4, "e");
    expect(await anchor.anchorAudit(witness)).toHaveProperty("written");
    const witnessedHead = (await snapshot()).head!;
    await putBack(backup); // the restore
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: false });
    // Not over a chain that does not verify on its own.
    const row = backup.rows[2]!;
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: "allow" } });
    await expect(anchor.reanchorAudit({ reason: "restore", actor: "ops", witness })).rejects.toThrow(/does not verify/);
    await db.auditLog.update({ where: { seq: row.seq }, data: { decision: row.decision } });
    const entry = await anchor.reanchorAudit({ reason: "restored from the 03:00 backup", actor: "ops", witness });
    expect(entry).toMatchObject({
      kind: "reanchor",
      count: backup.rows.length + 1,
      previous: { seq: witnessedHead.seq, count: witnessedHead.count },
    });
    const reanchored = await db.auditLog.findFirstOrThrow({ where: { action: "audit.reanchored" } });
    expect(reanchored.details).toMatchObject({
      reason: "restored from the 03:00 backup",
      actor: "ops",
      previous: { seq: witnessedHead.seq },
    });
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true, witness: { kind: "reanchor" } });
    await append(2, "f");
    expect(await anchor.anchorAudit(witness)).toHaveProperty("written");
    expect(await anchor.verifyAuditWithWitness({ witness })).toMatchObject({ ok: true });
  });

  it.runIf(kind === "sqlite")(
    "npm run audit:verify reports an emptied log against the witness; npm run audit:reanchor re-anchors it",
    async () => {
      const { spawnSync } = await import("node:child_process");
      const env = { ...process.env, DATABASE_URL: url, AUDIT_WITNESS: `file:${witnessFile}` };
      expect(spawnSync("npm", ["run", "-s", "audit:verify"], { env, encoding: "utf8" }).status).toBe(0);
      await db.$executeRawUnsafe(`DELETE FROM "AuditLog"`);
      await db.$executeRawUnsafe(`DELETE FROM "AuditCheckpoint"`);
      const bad = spawnSync("npm", ["run", "-s", "audit:verify"], { env, encoding: "utf8" });
      expect(bad.status).toBe(1);
      expect(JSON.parse(bad.stdout.trim().split("\n")[0]!)).toMatchObject({
        ok: false,
        problem: expect.stringMatching(/emptied/),
      });
      expect(spawnSync("npm", ["run", "-s", "audit:reanchor"], { env, encoding: "utf8" }).status).toBe(2);
      const re = spawnSync(
        "npm",
        ["run", "-s", "audit:reanchor", "--", "--reason", "emptied on purpose in a test", "--actor", "test"],
        { env, encoding: "utf8" },
      );
      expect(re.status).toBe(0);
      expect(spawnSync("npm", ["run", "-s", "audit:verify"], { env, encoding: "utf8" }).status).toBe(0);
    },
  );

  it("an HTTP webhook witness on a local receiver serves two logs, and reports an emptied log", async () => {
    const { HttpWitness } = await import("@/lib/audit/witness-http");
    const stored = new Map<string, unknown[]>();
    const receiver = http.createServer((req, res) => {
      if (req.headers.authorization !== "Bearer receiver-token") return res.writeHead(401).end();
      const u = new URL(req.url ?? "/", "http://x");
      if (req.method === "GET") {
        const list = stored.get(u.searchParams.get("logId") ?? "") ?? [];
        if (!list.length) return res.writeHead(204).end();
        return res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(list[list.length - 1]));
      }
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        const entry = JSON.parse(body) as { logId: string };
        stored.set(entry.logId, [...(stored.get(entry.logId) ?? []), entry]);
        res.writeHead(201).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r));
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/witness`;
      await anchor.anchorAudit(new HttpWitness(hook, "wrong"));
      throw new Error("a refused append must throw");
    } catch (error) {
      expect(String(error)).toMatch(/answered 401/);
    }
    try {
      const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/witness`;
      const webhook = new HttpWitness(hook, "receiver-token");
      // A second log (another installation) on the same receiver.
      expect(await anchor.anchorAudit(webhook, "another-installation")).toHaveProperty("written");
      expect(await anchor.anchorAudit(webhook)).toHaveProperty("written");
      expect(stored.size).toBe(2);
      const saved = await snapshot();
      await db.$executeRawUnsafe(`DELETE FROM "AuditLog"`);
      await db.$executeRawUnsafe(`DELETE FROM "AuditCheckpoint"`);
      expect(await anchor.verifyAuditWithWitness({ witness: webhook })).toMatchObject({
        ok: false,
        problem: expect.stringMatching(/webhook .* no longer holds it/),
      });
      await putBack(saved);
      expect(await anchor.verifyAuditWithWitness({ witness: webhook })).toMatchObject({ ok: true });
      // A receiver answering an entry it made up (not signed with the audit key) is an error, not a pass.
      const [logId, list] = [...stored.entries()].find(([id]) => id !== "another-installation")!;
      const last = list[list.length - 1] as { count: number };
      list.push({ ...last, count: last.count + 7 });
      await expect(anchor.verifyAuditWithWitness({ witness: webhook })).rejects.toThrow(/not signed/);
      expect(logId).toBeTruthy();
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });
});
