// The audit log is hash-chained: an edited or deleted row is detected. Runs on SQLite, and on PostgreSQL
// when configured, each on its own fresh database.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { newPostgresUrl, newSqliteUrl, prepareDatabase } from "../support/databases";

const targets: Array<[string, () => Promise<{ url: string; drop?: () => Promise<void> }>]> = [["sqlite", async () => ({ url: newSqliteUrl() })]];
if (process.env.TEST_DATABASE_URL_PG) targets.push(["postgres", () => newPostgresUrl(process.env.TEST_DATABASE_URL_PG!)]);

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
    await Promise.all(Array.from({ length: 25 }, (_, i) => audit.appendAudit({ action: "test.event", toolName: `t${i}`, details: { i } })));
    const result = await audit.verifyAuditChain();
    expect(result).toEqual({ ok: true, count: 25 });
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
});
