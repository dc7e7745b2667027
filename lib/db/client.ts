import "server-only";
// One Prisma client per process, for the provider DATABASE_URL names. Both generated clients share the
// model API (one schema source), so the SQLite client's type serves for both.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient as SqliteClient, type Prisma } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { loadConfig } from "@/lib/config";
import { sanitizeDeep } from "@/lib/text-sanitize";

export type Db = InstanceType<typeof SqliteClient>;

const globalForDb = globalThis as unknown as { toolgateDb?: Map<string, Db> };

/** What lib/db/sql.ts uses of Prisma's SQLite adapter: its one connection, and its transaction lock. */
export type SqliteDriver = {
  client: import("better-sqlite3").Database;
  startTransaction(): Promise<{ commit(): Promise<void>; rollback(): Promise<void> }>;
};

/** The adapter factory, keeping the adapter Prisma connects (Prisma does not hand it out). */
class SqliteFactory extends PrismaBetterSQLite3 {
  connected?: Promise<SqliteDriver>;
  override connect() {
    const adapter = super.connect();
    this.connected = adapter as unknown as Promise<SqliteDriver>;
    return adapter;
  }
}
// On globalThis, like the clients below: Next.js may load this module once per bundle, and every copy must find
// the factory of the client getDb() hands out.
const globalForFactories = globalThis as unknown as { toolgateSqliteFactories?: WeakMap<object, SqliteFactory> };
const sqliteFactories = (globalForFactories.toolgateSqliteFactories ??= new WeakMap());

/**
 * The connection Prisma's SQLite adapter writes through, once Prisma has opened it; null when it is not known
 * (the caller then goes through Prisma). Statements run on it inside startTransaction() queue behind, and hold
 * off, Prisma's own transactions, exactly as Prisma's transactions do with each other.
 */
export async function sqliteDriver(db: Db): Promise<SqliteDriver | null> {
  const factory = sqliteFactories.get(db);
  if (!factory) return null;
  if (!factory.connected) await db.$connect();
  const driver = await factory.connected;
  return driver && typeof driver.client?.prepare === "function" && typeof driver.startTransaction === "function" ? driver : null;
}

export function createDb(url: string): Db {
  if (!/^postgres(ql)?:\/\//.test(url)) {
    const factory = new SqliteFactory({ url, timeout: 10_000 });
    const db = extend(new SqliteClient({ adapter: factory }));
    sqliteFactories.set(db, factory);
    return db;
  }
  return extend(new PostgresClient({ adapter: new PrismaPg({ connectionString: url }) }) as unknown as Db);
}

function extend(client: Db): Db {
  // PostgreSQL refuses NUL bytes in text and lone surrogates in jsonb (a 500 and a failed turn): every
  // model operation's arguments, on both databases, are cleaned first (lib/text-sanitize.ts).
  return client.$extends({ query: { $allModels: { $allOperations: ({ args, query }) => query(sanitizeDeep(args)) } } }) as unknown as Db;
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

/** A client inside an interactive transaction (what `transact` hands its callback). */
export type Tx = Prisma.TransactionClient;

/**
 * Runs fn in one transaction: everything it writes commits together or not at all. Generous waits, because
 * under load (100 sessions on one SQLite file) transactions queue behind each other rather than fail.
 */
export function transact<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
  return getDb().$transaction(fn as never, { maxWait: 15_000, timeout: 15_000 }) as Promise<T>;
}
