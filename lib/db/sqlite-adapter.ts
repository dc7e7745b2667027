import "server-only";
// The SQLite adapter, with interactive transactions that begin IMMEDIATE. Prisma's adapter begins them DEFERRED: a
// transaction that reads and then writes takes the write lock only at its first write, and when another process
// (a second instance on the same file) wrote meanwhile, SQLite cannot upgrade the read snapshot and fails at once
// with "database is locked" (SQLITE_BUSY_SNAPSHOT; the busy timeout does not apply). A decision racing one made on
// another instance then answered 500 instead of CONFLICT. BEGIN IMMEDIATE takes the write lock first, waiting up to
// the busy timeout, so the second transaction reads after the first committed and its conditional update loses.
import { PrismaBetterSqlite3 } from "@prisma/adapter-better-sqlite3";

type Factory = InstanceType<typeof PrismaBetterSqlite3>;
type Adapter = Awaited<ReturnType<Factory["connect"]>>;
type Statement = {
  run: (...args: unknown[]) => unknown;
  all: (...args: unknown[]) => unknown[];
  raw: (on?: boolean) => Statement;
  columns: () => unknown[];
  readonly reader: boolean;
};
type Connection = {
  prepare: (sql: string) => Statement;
  pragma: (source: string, options?: { simple: boolean }) => unknown;
};

/** The most statements kept prepared per connection (raw statements of many shapes would otherwise grow it). */
const PREPARED_LIMIT = 500;

/**
 * The adapter prepares every query's SQL anew and binds it once (a statement binds only once): about a tenth of a
 * query's cost. Here each SQL text is prepared once per connection and kept (least recently used dropped past the
 * limit); what the adapter binds is a view of the kept statement that passes the arguments to each run instead.
 * The adapter runs a statement to its end at once (run, or all), so no kept statement is ever mid-iteration.
 */
function cachedPrepare(prepare: (sql: string) => Statement): (sql: string) => unknown {
  const kept = new Map<string, Statement>();
  return (sql: string) => {
    let statement = kept.get(sql);
    if (statement) kept.delete(sql);
    else statement = prepare(sql);
    kept.set(sql, statement);
    if (kept.size > PREPARED_LIMIT) kept.delete(kept.keys().next().value!);
    const shared = statement;
    return {
      bind: (args: unknown[]) => ({
        reader: shared.reader,
        columns: () => shared.columns(),
        run: () => shared.run(args),
        raw: () => ({ all: () => shared.raw(true).all(args) }),
      }),
      run: () => shared.run(),
    };
  };
}

/** The factory the Prisma client takes for a SQLite file, its transactions begun IMMEDIATE. */
export function immediateSqliteAdapter(url: string, timeoutMs: number): Factory {
  const factory = new PrismaBetterSqlite3({ url, timeout: timeoutMs });
  const connect = factory.connect.bind(factory);
  factory.connect = async (): Promise<Adapter> => {
    const adapter = await connect();
    // The adapter begins a transaction with the statement "BEGIN" on its one connection (and nothing else sends
    // that text): that statement alone is prepared as BEGIN IMMEDIATE.
    const connection = (adapter as unknown as { client: Connection }).client;
    // WAL with synchronous=NORMAL: a commit is in the WAL (the OS holds it) when it returns, so it survives the
    // process dying (kill -9, a crash, a full disk); only a power loss or an OS crash may take back the last commits,
    // and the file stays consistent. The driver's build already opens WAL files so (SQLITE_DEFAULT_WAL_SYNCHRONOUS=1);
    // said here so that a driver built otherwise does not wait for an fsync at every commit (about 5 ms on the
    // development VM, the event loop blocked). The audit anchor syncs before it writes the witness (lib/audit/anchor.ts),
    // so the witness never gets ahead of what is on disk. Not in rollback-journal mode, where NORMAL is not safe.
    if (connection.pragma("journal_mode", { simple: true }) === "wal") connection.pragma("synchronous = NORMAL");
    const prepare = cachedPrepare(connection.prepare.bind(connection));
    connection.prepare = (sql: string) => prepare(sql === "BEGIN" ? "BEGIN IMMEDIATE" : sql) as Statement;
    return adapter;
  };
  return factory;
}
