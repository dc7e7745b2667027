// SQLite transactions that read and then write, racing another process's write on the same file (a second
// instance): with Prisma's DEFERRED BEGIN the read snapshot could not be upgraded and the write failed at once with
// "database is locked" (the busy timeout does not apply), so a decision racing another instance's answered 500. With
// BEGIN IMMEDIATE (lib/db/sqlite-adapter.ts) the other process waits for this transaction, then writes after it.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDb } from "@/lib/db/client";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-immediate-"));
const file = path.join(dir, "race.db");
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Another process: opens the file (says "ready"), then writes in a transaction of its own (says "committed"). */
function otherWriter(): { child: ChildProcess; lines: string[] } {
  const script = `
    const Database = require("better-sqlite3");
    const db = new Database(${JSON.stringify(file)}, { timeout: 20000 });
    process.stdout.write("ready\\n");
    process.stdin.once("data", () => {
      db.prepare("BEGIN IMMEDIATE").run();
      db.prepare("UPDATE counter SET n = n + 100").run();
      db.prepare("COMMIT").run();
      process.stdout.write("committed\\n");
      db.close();
      process.exit(0);
    });`;
  const child = spawn(process.execPath, ["-e", script], { cwd: process.cwd(), stdio: ["pipe", "pipe", "inherit"] });
  children.push(child);
  const lines: string[] = [];
  child.stdout!.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
  return { child, lines };
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return check();
}

describe("SQLite interactive transactions begin IMMEDIATE", () => {
  it("a read-then-write transaction racing another process's write waits for no snapshot: both writes land, none fails as locked", async () => {
    const db = createDb(`file:${file}`);
    try {
      await db.$executeRawUnsafe("PRAGMA journal_mode = WAL");
      await db.$executeRawUnsafe("CREATE TABLE counter (n INTEGER NOT NULL)");
      await db.$executeRawUnsafe("INSERT INTO counter (n) VALUES (0)");
      const other = otherWriter();
      expect(await until(() => other.lines.includes("ready"), 30_000)).toBe(true);
      await db.$transaction(
        async (tx) => {
          const rows = await tx.$queryRawUnsafe<Array<{ n: bigint | number }>>("SELECT n FROM counter");
          // The other process writes now, while this transaction has read and not yet written. Deferred, it
          // commits at once (and this transaction's write below fails); immediate, it waits for this one.
          other.child.stdin!.write("go\n");
          await until(() => other.lines.includes("committed"), 3_000);
          await tx.$executeRawUnsafe(`UPDATE counter SET n = ${Number(rows[0]!.n) + 1}`);
        },
        { maxWait: 15_000, timeout: 30_000 },
      );
      expect(await until(() => other.lines.includes("committed"), 30_000)).toBe(true);
      const [row] = await db.$queryRawUnsafe<Array<{ n: bigint | number }>>("SELECT n FROM counter");
      // This transaction's +1 first, then the other process's +100 on top of it: nothing lost, nothing failed.
      expect(Number(row!.n)).toBe(101);
    } finally {
      await db.$disconnect();
    }
  });
});

describe("the SQLite connection (lib/db/sqlite-adapter.ts)", () => {
  it("commits without an fsync in WAL mode (synchronous NORMAL), and keeps FULL in rollback-journal mode", async () => {
    const setup = createDb(`file:${path.join(dir, "wal.db")}`);
    await setup.$executeRawUnsafe("PRAGMA journal_mode = WAL");
    await setup.$disconnect();
    for (const [name, expected] of [
      ["wal.db", 1],
      ["journal.db", 2],
    ] as const) {
      const db = createDb(`file:${path.join(dir, name)}`);
      try {
        const [row] = await db.$queryRawUnsafe<Array<{ synchronous: bigint | number }>>("PRAGMA synchronous");
        expect(Number(row!.synchronous), name).toBe(expected);
      } finally {
        await db.$disconnect();
      }
    }
  });

  it("a statement kept prepared answers each run with that run's arguments, also after one that failed", async () => {
    const db = createDb(`file:${path.join(dir, "kept.db")}`);
    try {
      await db.$executeRawUnsafe("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)");
      for (let i = 0; i < 5; i++) await db.$executeRawUnsafe("INSERT INTO item (id, name) VALUES (?, ?)", i, `n${i}`);
      await expect(db.$executeRawUnsafe("INSERT INTO item (id, name) VALUES (?, ?)", 9, "n1")).rejects.toThrow(
        /UNIQUE/,
      );
      for (let i = 4; i >= 0; i--)
        expect(await db.$queryRawUnsafe("SELECT name FROM item WHERE id = ?", i)).toEqual([{ name: `n${i}` }]);
      expect(await db.$queryRawUnsafe("SELECT name FROM item WHERE id = ?", 7)).toEqual([]);
      await db.$transaction(async (tx) => {
        await tx.$executeRawUnsafe("INSERT INTO item (id, name) VALUES (?, ?)", 5, "n5");
        expect(await tx.$queryRawUnsafe("SELECT name FROM item WHERE id = ?", 5)).toEqual([{ name: "n5" }]);
      });
    } finally {
      await db.$disconnect();
    }
  });
});
