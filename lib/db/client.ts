import "server-only";
// One Prisma client per process, for the provider DATABASE_URL names. Both generated clients share the
// model API (one schema source), so the SQLite client's type serves for both.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { loadConfig } from "@/lib/config";

export type Db = InstanceType<typeof SqliteClient>;

const globalForDb = globalThis as unknown as { toolgateDb?: Map<string, Db> };

export function createDb(url: string): Db {
  if (/^postgres(ql)?:\/\//.test(url)) {
    return new PostgresClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db;
  }
  return new SqliteClient({ adapter: new PrismaBetterSQLite3({ url, timeout: 10_000 }) });
}

/** The app's database. Cached on globalThis so dev-server reloads don't open new pools. */
export function getDb(): Db {
  const url = loadConfig().DATABASE_URL;
  globalForDb.toolgateDb ??= new Map();
  let db = globalForDb.toolgateDb.get(url);
  if (!db) {
    db = createDb(url);
    globalForDb.toolgateDb.set(url, db);
  }
  return db;
}

export function isPostgres(): boolean {
  return loadConfig().databaseProvider === "postgres";
}
