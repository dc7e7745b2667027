// The server refuses to start on a database this build's migrations have not all reached (scripts/server.mjs via
// instrumentation.ts → lib/startup.ts): one line naming the fix and a non-zero exit, rather than serving with
// /readyz at 503 and background sweeps failing on missing tables. Once migrated, the same database starts.
import Database from "better-sqlite3";
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { newSqliteUrl, prepareDatabase } from "../support/databases";

const started: RunningApp[] = [];
afterAll(async () => {
  for (const app of started) await app.stop();
});

const fileOf = (url: string) => url.slice("file:".length).replace(/\?.*$/, "");

async function refusal(databaseUrl: string): Promise<string> {
  const outcome = await startApp({ databaseUrl }).then(
    (app) => (started.push(app), "started"),
    (error: unknown) => String(error instanceof Error ? error.message : error),
  );
  return outcome;
}

describe("ops: start-up on an unmigrated database", () => {
  it("a database that lacks this build's last migration: exits 1 with one line naming `npm run db:migrate`", async () => {
    const url = newSqliteUrl();
    prepareDatabase(url);
    const db = new Database(fileOf(url));
    const last = db
      .prepare(`SELECT migration_name FROM "_prisma_migrations" ORDER BY migration_name DESC LIMIT 1`)
      .get() as { migration_name: string };
    const row = db
      .prepare(`SELECT * FROM "_prisma_migrations" WHERE migration_name = ?`)
      .get(last.migration_name) as Record<string, unknown>;
    db.prepare(`DELETE FROM "_prisma_migrations" WHERE migration_name = ?`).run(last.migration_name);

    const message = await refusal(url);
    expect(message).toMatch(/^app exited early \(1\)/);
    const lines = message.split("\n").filter((l) => l.includes("npm run db:migrate"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("lacks 1 migration(s)");
    expect(lines[0]).toContain(last.migration_name);

    // The migration recorded again (what `npm run db:migrate` would do): the same database starts and is ready.
    const columns = Object.keys(row);
    db.prepare(
      `INSERT INTO "_prisma_migrations" (${columns.map((c) => `"${c}"`).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
    ).run(...Object.values(row));
    db.close();
    const app = await startApp({ databaseUrl: url });
    started.push(app);
    expect((await fetch(`${app.url}/readyz`)).status).toBe(200);
  });

  it("a database never migrated (no migrations table): exits 1 naming every migration as missing", async () => {
    const url = newSqliteUrl();
    fs.writeFileSync(fileOf(url), "");
    const message = await refusal(url);
    expect(message).toMatch(/^app exited early \(1\)/);
    expect(message).toMatch(/lacks \d+ migration\(s\) of this build .*npm run db:migrate/);
  });
});
