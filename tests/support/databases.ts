// Fresh databases for tests: a new SQLite file, or a new database on the PostgreSQL server named by
// TEST_DATABASE_URL_PG. Both are migrated with the project's own migrations and seeded with demo users.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import Database from "better-sqlite3";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "pg";
import { DEMO_PASSWORD, ROOT } from "./app-server";

export type DbKind = "sqlite" | "postgres";

/**
 * Migrates and seeds a new, empty database. Migrating (the Prisma CLI) and seeding (bcrypt) cost seconds per
 * database, and the suite makes dozens: the first call builds a template per provider, keyed by a hash of
 * everything that shapes it, and every later database is a copy of it (a file copy on SQLite, `CREATE
 * DATABASE … TEMPLATE` on PostgreSQL), which gives the same result as migrating and seeding it afresh.
 */
export function prepareDatabase(databaseUrl: string): void {
  if (databaseUrl.startsWith("file:")) copySqliteTemplate(databaseUrl);
  else if (/^postgres(ql)?:\/\//.test(databaseUrl)) cloneFromPostgresTemplate(databaseUrl);
  else migrateAndSeed(databaseUrl);
}

function migrateAndSeed(databaseUrl: string): void {
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    SEED_DEMO_USERS: "true",
    DEMO_PASSWORD,
    PRISMA_HIDE_UPDATE_MESSAGE: "1",
  };
  execFileSync("node", ["scripts/db.mjs", "migrate"], { cwd: ROOT, env, stdio: "pipe" });
  execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["--conditions=react-server", "scripts/seed.ts"], {
    cwd: ROOT,
    env,
    stdio: "pipe",
  });
}

let templateHash: string | undefined;
/** What a prepared database depends on: the schema and migrations, the migrate and seed scripts, lib/ (which the seed runs), the demo password. */
function hashTemplateInputs(): string {
  if (templateHash) return templateHash;
  const hash = createHash("sha256").update(DEMO_PASSWORD);
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "generated") walk(full);
      } else {
        hash.update(path.relative(ROOT, full)).update(fs.readFileSync(full));
      }
    }
  };
  for (const dir of ["prisma", "lib"]) walk(path.join(ROOT, dir));
  for (const file of ["scripts/db.mjs", "scripts/seed.ts", "package-lock.json"])
    hash.update(file).update(fs.readFileSync(path.join(ROOT, file)));
  return (templateHash = hash.digest("hex").slice(0, 16));
}

function sqliteFile(url: string): string {
  return url.slice("file:".length).replace(/\?.*$/, "");
}

function copySqliteTemplate(databaseUrl: string): void {
  const template = path.join(os.tmpdir(), `toolgate-template-${hashTemplateInputs()}.db`);
  if (!fs.existsSync(template)) {
    // Built aside and renamed into place: a concurrent test process sees no template or a whole one.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-template-"));
    const building = path.join(dir, "template.db");
    migrateAndSeed(`file:${building}`);
    // Fold the write-ahead log into the file, so that the file alone is the whole database.
    const db = new Database(building);
    db.pragma("wal_checkpoint(TRUNCATE)");
    db.close();
    fs.renameSync(building, template);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const target = sqliteFile(databaseUrl);
  if (fs.existsSync(target) && fs.statSync(target).size > 0)
    throw new Error(`prepareDatabase: ${target} is not a new database`);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(template, target);
}

// PostgreSQL's CREATE DATABASE is asynchronous to a client and prepareDatabase is synchronous (its callers
// prepare before importing the app's modules), so the template work runs in a child node process.
const PG_TEMPLATE_SCRIPT = `
const { Client } = require("pg");
const [serverUrl, target, template, step] = process.argv.slice(1);
(async () => {
  const c = new Client({ connectionString: serverUrl });
  await c.connect();
  try {
    if (step === "exists") {
      const r = await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template]);
      process.stdout.write(r.rowCount ? "yes" : "no");
    } else if (step === "publish") {
      // target = the database just built under a temporary name; the first to publish wins.
      try { await c.query(\`ALTER DATABASE "\${target}" RENAME TO "\${template}"\`); }
      catch { await c.query(\`DROP DATABASE IF EXISTS "\${target}" WITH (FORCE)\`); }
      // Templates of older sources are dropped (best effort: one in use by another run stays).
      const old = await c.query("SELECT datname FROM pg_database WHERE datname LIKE 'toolgate\\\\_template\\\\_%' AND datname NOT LIKE 'toolgate\\\\_template\\\\_building%' AND datname <> $1", [template]);
      for (const { datname } of old.rows) await c.query(\`DROP DATABASE IF EXISTS "\${datname}"\`).catch(() => undefined);
    } else {
      await c.query(\`DROP DATABASE IF EXISTS "\${target}" WITH (FORCE)\`);
      await c.query(\`CREATE DATABASE "\${target}" TEMPLATE "\${template}"\`);
    }
  } finally { await c.end(); }
})().catch((e) => { console.error(String(e && e.message || e)); process.exit(1); });
`;

function pgTemplateStep(
  serverUrl: string,
  target: string,
  template: string,
  step: "exists" | "publish" | "clone",
): string {
  return execFileSync(process.execPath, ["-e", PG_TEMPLATE_SCRIPT, serverUrl, target, template, step], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function cloneFromPostgresTemplate(databaseUrl: string): void {
  const url = new URL(databaseUrl);
  const target = decodeURIComponent(url.pathname.slice(1));
  const server = new URL(databaseUrl);
  server.pathname = "/postgres";
  const template = `toolgate_template_${hashTemplateInputs()}`;
  const build = () => {
    // Build under a name of its own, then rename into place (a rename is atomic; a half-built template is never used).
    const building = `toolgate_template_building_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
    pgTemplateStep(server.toString(), building, "template1", "clone");
    const buildingUrl = new URL(databaseUrl);
    buildingUrl.pathname = `/${building}`;
    migrateAndSeed(buildingUrl.toString());
    pgTemplateStep(server.toString(), building, template, "publish");
  };
  if (pgTemplateStep(server.toString(), target, template, "exists") !== "yes") build();
  try {
    pgTemplateStep(server.toString(), target, template, "clone");
  } catch {
    // A concurrent run of other sources dropped this template as old between the check and the copy.
    build();
    pgTemplateStep(server.toString(), target, template, "clone");
  }
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

/**
 * For in-process tests that point the app at another database: the event tailer and the streams' fan-out
 * subscription are per-process singletons on globalThis, and the old ones would keep tailing the previous database.
 */
export function resetEventBus(): void {
  const g = globalThis as { toolgateTailer?: unknown; toolgateFanOutListening?: unknown };
  delete g.toolgateTailer;
  delete g.toolgateFanOutListening;
}

export type DatabaseTarget = { url: string; drop?: () => Promise<void> };

/** The databases a self-contained integration file runs against: a new SQLite file, and a new PostgreSQL database when TEST_DATABASE_URL_PG names a server. */
export function databaseTargets(): Array<[string, () => Promise<DatabaseTarget>]> {
  const targets: Array<[string, () => Promise<DatabaseTarget>]> = [["sqlite", async () => ({ url: newSqliteUrl() })]];
  const server = process.env.TEST_DATABASE_URL_PG;
  if (server) targets.push(["postgres", () => newPostgresUrl(server)]);
  return targets;
}

/**
 * Stores what an install made before exec's sandbox mode holds: a version-1 policy document that names no exec
 * mode, which keeps meaning "allowlist" (lib/policy/document.ts, upgradePolicyInput). Tests written for the
 * allowlist mode's approvals run against such an install, as an upgraded one would.
 */
export async function storeVersionOnePolicy(databaseUrl: string): Promise<void> {
  const comment = "stored before sandbox mode (test setup)";
  if (databaseUrl.startsWith("file:")) {
    const db = new Database(databaseUrl.replace(/^file:/, ""));
    try {
      db.prepare(`INSERT INTO "PolicyVersion" ("version", "document", "comment", "createdAt") VALUES (1, ?, ?, ?)`).run(
        JSON.stringify({ version: 1 }),
        comment,
        new Date().toISOString(),
      );
    } finally {
      db.close();
    }
    return;
  }
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(`INSERT INTO "PolicyVersion" ("version", "document", "comment") VALUES (1, $1, $2)`, [
      JSON.stringify({ version: 1 }),
      comment,
    ]);
  } finally {
    await client.end();
  }
}
