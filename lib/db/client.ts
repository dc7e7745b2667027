import "server-only";
// One Prisma client per process, for the provider DATABASE_URL names. Both generated clients share the
// model API (one schema source), so the SQLite client's type serves for both.
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient as SqliteClient, type Prisma } from "@/lib/generated/sqlite/client";
import { PrismaClient as PostgresClient } from "@/lib/generated/postgres/client";
import { loadConfig } from "@/lib/config";
import { sanitizeDeep } from "@/lib/text-sanitize";
import { immediateSqliteAdapter } from "./sqlite-adapter";
import { processSlots } from "@/lib/process-singleton";

export type Db = InstanceType<typeof SqliteClient>;

const globalForDb = processSlots<{ toolgateDb?: Map<string, Db> }>();

export function createDb(url: string): Db {
  if (!/^postgres(ql)?:\/\//.test(url))
    return extend(new SqliteClient({ adapter: immediateSqliteAdapter(url, 10_000) }));
  return extend(
    new PostgresClient({
      adapter: new PrismaPg(new ReleasingPool({ connectionString: url }), { disposeExternalPool: true }),
    }) as unknown as Db,
  );
}

type ConnectCallback = Parameters<pg.Pool["connect"]> extends [infer C] ? C : never;

/**
 * Prisma's engine ends a transaction by sending ROLLBACK, and gives its connection back to the pool only once that
 * succeeded. A connection lost mid-transaction (a killed backend, a server restart, a session ended by a full disk)
 * cannot roll back, so it stayed checked out for good: after ten of them (the pool's size) every transaction waited
 * for a connection until it timed out, and the instance stopped writing until it was restarted. Here a checked-out
 * connection that fails or ends is given back at once (the pool discards it), and a later release is a no-op.
 */
class ReleasingPool extends pg.Pool {
  override connect(): Promise<pg.PoolClient>;
  override connect(callback: ConnectCallback): void;
  override connect(callback?: ConnectCallback): Promise<pg.PoolClient> | void {
    // With a callback (pool.query): the pool releases the connection itself, whatever happens.
    if (callback) return super.connect(callback);
    return super.connect().then((client) => {
      const release = client.release.bind(client);
      let released = false;
      const lost = (error?: Error) => {
        client.removeListener("error", lost);
        client.removeListener("end", ended);
        if (released) return;
        released = true;
        release(error ?? true);
      };
      const ended = () => lost(new Error("the connection ended while checked out"));
      client.on("error", lost);
      client.on("end", ended);
      client.release = (error?: Error | boolean) => {
        client.removeListener("error", lost);
        client.removeListener("end", ended);
        if (released) return;
        released = true;
        release(error);
      };
      return client;
    });
  }
}

function extend(client: Db): Db {
  // PostgreSQL refuses NUL bytes in text and lone surrogates in jsonb (a 500 and a failed turn): every
  // model operation's arguments, on both databases, are cleaned first (lib/text-sanitize.ts).
  return client.$extends({
    query: { $allModels: { $allOperations: ({ args, query }) => query(sanitizeDeep(args)) } },
  }) as unknown as Db;
}

/** The app's database. One per process (lib/process-singleton.ts), so dev-server reloads don't open new pools. */
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

/**
 * Whether an error says the database ran out of space: SQLite's SQLITE_FULL (a full disk, or max_page_count), and
 * PostgreSQL's disk_full (SQLSTATE 53100), as Prisma, its adapters or pg report them, on the error or its cause.
 */
export function isStorageFull(error: unknown): boolean {
  for (
    let e = error, depth = 0;
    e && typeof e === "object" && depth < 5;
    e = (e as { cause?: unknown }).cause, depth++
  ) {
    const { code, meta } = e as {
      code?: unknown;
      meta?: { code?: unknown; driverAdapterError?: { cause?: { originalCode?: unknown; code?: unknown } } };
    };
    const codes = [
      code,
      meta?.code,
      meta?.driverAdapterError?.cause?.originalCode,
      meta?.driverAdapterError?.cause?.code,
    ];
    if (codes.some((c) => c === "SQLITE_FULL" || c === "53100" || c === "ENOSPC")) return true;
  }
  return false;
}
