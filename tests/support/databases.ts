// Fresh databases for tests: a new SQLite file, or a new database on the PostgreSQL server named by
// TEST_DATABASE_URL_PG. Both are migrated with the project's own migrations and seeded with demo users.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { DEMO_PASSWORD, ROOT } from "./app-server";

export type DbKind = "sqlite" | "postgres";

export function prepareDatabase(databaseUrl: string): void {
  const env = { ...process.env, DATABASE_URL: databaseUrl, SEED_DEMO_USERS: "true", DEMO_PASSWORD, PRISMA_HIDE_UPDATE_MESSAGE: "1" };
  execFileSync("node", ["scripts/db.mjs", "migrate"], { cwd: ROOT, env, stdio: "pipe" });
  execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["--conditions=react-server", "scripts/seed.ts"], { cwd: ROOT, env, stdio: "pipe" });
}

export function newSqliteUrl(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-test-"));
  return `file:${path.join(dir, "test.db")}`;
}

export async function newPostgresUrl(baseUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `toolgate_test_${process.pid}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = new Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: baseUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

/** The PostgreSQL server URL when a server answers there within two seconds, else null (benchmarks skip it). */
export async function reachablePostgresBase(url: string): Promise<string | null> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
}
