// A transcript's seq comes from a counter on its session row, taken under that row's lock: concurrent appends from
// several instances never collide, never leave a gap, and a rolled-back append gives its number back.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("message seq (%s)", (kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let messages: typeof import("@/lib/db/messages");
  const clients: Array<import("@/lib/db/client").Db> = [];
  let sessionId: string;

  beforeAll(async () => {
    vi.resetModules();
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    process.env.DATABASE_URL = target.url;
    messages = await import("@/lib/db/messages");
    const { createDb } = await import("@/lib/db/client");
    // Two pools stand for two instances on PostgreSQL. SQLite runs one instance with one client: a second
    // better-sqlite3 connection in the same process would block the event loop while it waits for the lock.
    for (let i = 0; i < (kind === "postgres" ? 2 : 1); i++) clients.push(createDb(target.url));
    const owner = await clients[0]!.user.findUniqueOrThrow({ where: { email: "member@example.com" } });
    sessionId = (await clients[0]!.chatSession.create({ data: { ownerId: owner.id } })).id;
  });

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.$disconnect()));
    vi.resetModules();
    await drop?.();
  });

  const seqs = async () =>
    (await clients[0]!.message.findMany({ where: { sessionId }, orderBy: { seq: "asc" }, select: { seq: true } })).map(
      (m) => m.seq,
    );
  const counter = async () =>
    (await clients[0]!.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).messageSeq;

  it("40 appends at once (from two connection pools on PostgreSQL) get seqs 1..40", async () => {
    const append = (i: number) =>
      clients[i % clients.length]!.$transaction(
        (tx) => messages.appendMessageTx({ tx: tx as never, sessionId, message: { role: "user", content: `m${i}` } }),
        { maxWait: 20_000, timeout: 20_000 },
      );
    const rows = await Promise.all(Array.from({ length: 40 }, (_, i) => append(i)));
    expect(rows.map((r) => r.seq).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await seqs()).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    expect(await counter()).toBe(40);
  });

  it("an append rolled back with its transaction gives its number back: no gap", async () => {
    await expect(
      clients[0]!.$transaction(async (tx) => {
        await messages.appendMessageTx({ tx: tx as never, sessionId, message: { role: "user", content: "lost" } });
        throw new Error("the outcome failed after the line");
      }),
    ).rejects.toThrow(/outcome failed/);
    const next = await messages.appendMessage({ sessionId, message: { role: "assistant", content: "after" } });
    expect(next.seq).toBe(41);
    expect((await seqs()).at(-1)).toBe(41);
  });

  it(`the migration's backfill starts each session's counter at its last message (${kind})`, async () => {
    const migration = fs
      .readdirSync(path.join(ROOT, "prisma", kind, "migrations"))
      .find((d) => d.endsWith("_session_message_seq"))!;
    const sql = fs.readFileSync(path.join(ROOT, "prisma", kind, "migrations", migration, "migration.sql"), "utf8");
    const backfill = sql.split("\n").find((line) => line.startsWith('UPDATE "ChatSession" SET "messageSeq"'))!;
    expect(backfill).toBeDefined();
    await clients[0]!.chatSession.update({ where: { id: sessionId }, data: { messageSeq: 0 } });
    await clients[0]!.$executeRawUnsafe(backfill.replace(/;\s*$/, ""));
    expect(await counter()).toBe(41);
    expect((await messages.appendMessage({ sessionId, message: { role: "user", content: "next" } })).seq).toBe(42);
  });
});
