#!/usr/bin/env node
// Database tooling, one entry point:
//   node scripts/db.mjs schemas          write prisma/{sqlite,postgres}/schema.prisma from schema.base.prisma
//   node scripts/db.mjs generate         schemas + both Prisma clients (lib/generated/{sqlite,postgres})
//   node scripts/db.mjs migrate          apply migrations to DATABASE_URL (SQLite file by default)
//   node scripts/db.mjs new-migration NAME
//                                        write a migration for both providers: the diff between the schema at
//                                        HEAD and the working schema (`migrate dev` fails with the JS engine).
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PROVIDERS = {
  sqlite: { datasource: "sqlite", sampleUrl: "file:./data/toolgate.db" },
  postgres: { datasource: "postgresql", sampleUrl: "postgresql://postgres@127.0.0.1:5432/postgres" },
};

export function renderSchema(provider, base) {
  const header = `// GENERATED from prisma/schema.base.prisma by scripts/db.mjs. Do not edit.
generator client {
  provider   = "prisma-client"
  output     = "../../lib/generated/${provider}"
  engineType = "client"
}

datasource db {
  provider = "${PROVIDERS[provider].datasource}"
  url      = env("DATABASE_URL")
}
`;
  return `${header}\n${base}`;
}

function readBase() {
  return fs.readFileSync(path.join(root, "prisma/schema.base.prisma"), "utf8");
}

function writeSchemas() {
  const base = readBase();
  for (const provider of Object.keys(PROVIDERS)) {
    const file = path.join(root, "prisma", provider, "schema.prisma");
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const text = renderSchema(provider, base);
    if (!fs.existsSync(file) || fs.readFileSync(file, "utf8") !== text) fs.writeFileSync(file, text);
  }
}

function prisma(args, env = {}) {
  return execFileSync(path.join(root, "node_modules/.bin/prisma"), args, {
    cwd: root,
    env: { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: "1", ...env },
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
}

function generate() {
  writeSchemas();
  for (const [provider, { sampleUrl }] of Object.entries(PROVIDERS)) {
    prisma(["generate", "--schema", `prisma/${provider}/schema.prisma`], { DATABASE_URL: sampleUrl });
  }
}

export function providerOf(url) {
  return /^postgres(ql)?:\/\//.test(url) ? "postgres" : "sqlite";
}

async function migrate() {
  const url = process.env.DATABASE_URL ?? "file:./data/toolgate.db";
  if (providerOf(url) === "sqlite") {
    const file = url.replace(/^file:/, "");
    fs.mkdirSync(path.dirname(path.resolve(root, file)), { recursive: true });
  }
  process.stdout.write(prisma(["migrate", "deploy"], { DATABASE_URL: url }));
  if (providerOf(url) === "sqlite") await enableWal(url.replace(/^file:/, ""));
}

// WAL is a property of the database file: set once here, every connection then commits without a full
// file sync each time (measured: audit write p50 10 ms → 2 ms).
async function enableWal(file) {
  const { default: Database } = await import("better-sqlite3");
  const db = new Database(path.resolve(root, file));
  try {
    db.pragma("journal_mode = WAL");
  } finally {
    db.close();
  }
}

function newMigration(name) {
  if (!name || !/^[a-z0-9_]+$/.test(name)) throw new Error("usage: new-migration <snake_case_name>");
  writeSchemas();
  const stamp = new Date().toISOString().replace(/\D/g, "").slice(0, 14);
  const tmp = fs.mkdtempSync(path.join(root, "node_modules/.db-old-"));
  try {
    for (const [provider, { sampleUrl }] of Object.entries(PROVIDERS)) {
      const migrationsDir = path.join(root, "prisma", provider, "migrations");
      const hasHistory = fs.existsSync(migrationsDir) && fs.readdirSync(migrationsDir).some((d) => /^\d/.test(d));
      let from = ["--from-empty"];
      if (hasHistory) {
        const old = path.join(tmp, `${provider}.prisma`);
        fs.writeFileSync(
          old,
          renderSchema(
            provider,
            execFileSync("git", ["show", "HEAD:prisma/schema.base.prisma"], { cwd: root, encoding: "utf8" }),
          ),
        );
        from = ["--from-schema-datamodel", old];
      }
      const sql = prisma(
        ["migrate", "diff", ...from, "--to-schema-datamodel", `prisma/${provider}/schema.prisma`, "--script"],
        { DATABASE_URL: sampleUrl },
      );
      const dir = path.join(migrationsDir, `${stamp}_${name}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, "migration.sql"), sql);
      const lock = path.join(migrationsDir, "migration_lock.toml");
      if (!fs.existsSync(lock)) fs.writeFileSync(lock, `provider = "${PROVIDERS[provider].datasource}"\n`);
      console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const [cmd, arg] = process.argv.slice(2);
  const commands = { schemas: writeSchemas, generate, migrate, "new-migration": () => newMigration(arg) };
  const run = commands[cmd];
  if (!run) {
    console.error(`unknown command ${cmd ?? "(none)"}; one of: ${Object.keys(commands).join(", ")}`);
    process.exit(2);
  }
  await run();
}
