// The SQLite and PostgreSQL schemas come from prisma/schema.base.prisma; their migrations must produce
// exactly that schema: a database built by the migrations and one built straight from the schema must have
// the same tables, columns, indexes and foreign keys.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
// @ts-expect-error plain ESM script without types
import { migrateCli, migrateSchemaFile, renderSchema } from "../../scripts/db.mjs";
import { ROOT } from "../support/app-server";
import { newPostgresUrl, newSqliteUrl } from "../support/databases";
import { applyPostgresScript, applySqliteScript, postgresCatalog, sqliteCatalog } from "../support/schema-catalog";

function migrate(databaseUrl: string): void {
  execFileSync("node", ["scripts/db.mjs", "migrate"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdio: "pipe",
  });
}

/** The SQL that builds schema.prisma from nothing, straight from Prisma (no migrations involved). */
function schemaScript(provider: "sqlite" | "postgres", sampleUrl: string): string {
  return (migrateCli as (args: string[], env: object, stdio: unknown) => string)(
    ["migrate", "diff", "--from-empty", "--to-schema-datamodel", migrateSchemaFile(provider), "--script"],
    { DATABASE_URL: sampleUrl },
    ["ignore", "pipe", "pipe"],
  );
}

describe("schema for both providers, from one source", () => {
  const base = fs.readFileSync(path.join(ROOT, "prisma/schema.base.prisma"), "utf8");

  it.each(["sqlite", "postgres"])("prisma/%s/schema.prisma is the rendering of schema.base.prisma", (provider) => {
    const committed = fs.readFileSync(path.join(ROOT, "prisma", provider, "schema.prisma"), "utf8");
    expect(committed).toBe(renderSchema(provider, base));
  });

  it("both providers have the same migrations", () => {
    const names = (p: string) =>
      fs.readdirSync(path.join(ROOT, "prisma", p, "migrations")).filter((d) => /^\d/.test(d));
    expect(names("postgres")).toEqual(names("sqlite"));
    expect(names("sqlite").length).toBeGreaterThan(0);
  });

  it("SQLite migrations produce exactly the schema", () => {
    const migrated = newSqliteUrl();
    migrate(migrated);
    const direct = newSqliteUrl();
    applySqliteScript(direct.slice("file:".length), schemaScript("sqlite", direct));
    const fromMigrations = sqliteCatalog(migrated.slice("file:".length));
    expect(Object.keys(fromMigrations)).toContain("ChatSession");
    expect(fromMigrations).toEqual(sqliteCatalog(direct.slice("file:".length)));
  });

  it.runIf(Boolean(process.env.TEST_DATABASE_URL_PG))("PostgreSQL migrations produce exactly the schema", async () => {
    const migrated = await newPostgresUrl(process.env.TEST_DATABASE_URL_PG!);
    const direct = await newPostgresUrl(process.env.TEST_DATABASE_URL_PG!);
    try {
      migrate(migrated.url);
      await applyPostgresScript(direct.url, schemaScript("postgres", direct.url));
      const fromMigrations = await postgresCatalog(migrated.url);
      expect(Object.keys(fromMigrations)).toContain("ChatSession");
      expect(fromMigrations).toEqual(await postgresCatalog(direct.url));
    } finally {
      await migrated.drop();
      await direct.drop();
    }
  });
});
