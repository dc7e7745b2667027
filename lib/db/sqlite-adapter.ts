import "server-only";
// The SQLite adapter, with interactive transactions that begin IMMEDIATE. Prisma's adapter begins them DEFERRED: a
// transaction that reads and then writes takes the write lock only at its first write, and when another process
// (a second instance on the same file) wrote meanwhile, SQLite cannot upgrade the read snapshot and fails at once
// with "database is locked" (SQLITE_BUSY_SNAPSHOT; the busy timeout does not apply). A decision racing one made on
// another instance then answered 500 instead of CONFLICT. BEGIN IMMEDIATE takes the write lock first, waiting up to
// the busy timeout, so the second transaction reads after the first committed and its conditional update loses.
import { PrismaBetterSQLite3 } from "@prisma/adapter-better-sqlite3";

type Factory = InstanceType<typeof PrismaBetterSQLite3>;
type Adapter = Awaited<ReturnType<Factory["connect"]>>;
type Statement = { run: (...args: unknown[]) => unknown };
type Connection = { prepare: (sql: string) => Statement };

/** The factory the Prisma client takes for a SQLite file, its transactions begun IMMEDIATE. */
export function immediateSqliteAdapter(url: string, timeoutMs: number): Factory {
  const factory = new PrismaBetterSQLite3({ url, timeout: timeoutMs });
  const connect = factory.connect.bind(factory);
  factory.connect = async (): Promise<Adapter> => {
    const adapter = await connect();
    // The adapter begins a transaction with the statement "BEGIN" on its one connection (and nothing else sends
    // that text): that statement alone is prepared as BEGIN IMMEDIATE.
    const connection = (adapter as unknown as { client: Connection }).client;
    const prepare = connection.prepare.bind(connection);
    connection.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql);
    return adapter;
  };
  return factory;
}
