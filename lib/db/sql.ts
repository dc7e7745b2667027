import "server-only";
// The statements on the hot path of a turn (claiming a call, settling it, its transcript line, events and audit
// row) are written once, in SQL, against this small runner instead of Prisma's model API: Prisma 6 compiles every
// model query in its query compiler (0.3–1 ms a statement), and an outcome is five to eight statements. Measured
// with bench/agent-bench-worker.ts record: a five-statement transaction took 4.4× as long through the model API as
// through the driver, 2.3× through Prisma's raw queries.
//
// Two ways to run the same SQL:
// - transactSql: on PostgreSQL a transaction on a `pg` pool of its own (the fast path), pipelined: a statement
//   goes out when asked for, so statements asked for before any answer is read share one round trip, and a write
//   nobody reads goes out with the commit (recorder.ts asks that way: a claim is two round trips, a result one).
//   On SQLite straight on Prisma's own better-sqlite3 connection under the adapter's transaction lock, so that
//   every write to the file still goes through one connection and its lock (through a Prisma transaction when
//   that connection is unknown).
// - sqlOf(tx): inside a Prisma transaction that also does model writes (an approval, a stop), through its raw
//   queries, so those writes and these commit together.
// The SQL is written with $1…$n placeholders and PostgreSQL casts (::jsonb, ::timestamp(3)); for SQLite each
// placeholder becomes an anonymous `?` (bound in order) and the casts go. Values pass through `bind` (strings
// sanitised as the Prisma extension in client.ts does; Dates and JSON in the form each database stores).
import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { sanitizeDeep } from "@/lib/text-sanitize";
import { getDb, isPostgres, sqliteDriver, transact, type SqliteDriver, type Tx } from "./client";

export type Dialect = "postgres" | "sqlite";

/** One transaction's statements: rows of a statement (RETURNING rows for writes). */
export type Sql = {
  readonly dialect: Dialect;
  /** Statements go out without waiting for earlier answers (transactSql on PostgreSQL); elsewhere one at a time. */
  readonly pipelined: boolean;
  rows<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  /**
   * A statement whose answer nobody reads: its failure fails the transaction all the same. On PostgreSQL
   * (transactSql) it resolves once sent, and its answer is checked with the commit's, so the commit shares its
   * round trip; elsewhere it resolves once run.
   */
  write(text: string, params?: unknown[]): Promise<void>;
};

/** A step of an outcome that can lose (lib/runs/recorder.ts). */
export type LostStep = "call" | "consume" | "run" | "unsettled";

/**
 * SQL that is true when `condition` holds and otherwise fails its statement, and so its transaction, as the step
 * `step` lost ("toolgate_lost", migration 20261124220000_lost_step; PostgreSQL only). On a pipelined connection the
 * statements already sent behind a step that loses then do not run at all: they take no sequence numbers.
 */
export function unlessLost(condition: string, step: LostStep): string {
  return `CASE WHEN ${condition} THEN true ELSE ${failLost(step)} END`;
}

/** The SQL expression that fails its statement as the step `step` lost (see unlessLost). */
export function failLost(step: LostStep): string {
  return `"toolgate_lost"('${step}')`;
}

/**
 * A conditional write (… RETURNING) as a step of an outcome: on the pipelined runner, when it changes no row it
 * fails its transaction as `step` lost (unlessLost), since the outcome's later statements are already on the wire;
 * elsewhere (or with no step) the write as it is, answering no row.
 */
export function orLost(sql: Sql, text: string, step: LostStep | undefined): string {
  return step && sql.pipelined ? `WITH "step" AS (${text}) SELECT ${unlessLost(`EXISTS (SELECT 1 FROM "step")`, step)} AS "ok"` : text;
}

/** The step a statement failed as lost (unlessLost), or null for any other failure. */
export function lostStep(error: unknown): LostStep | null {
  const e = error as { code?: unknown; detail?: unknown } | null;
  return e?.code === "TG001" && typeof e.detail === "string" ? (e.detail as LostStep) : null;
}

/** A JSON value for a Json column (null and undefined are SQL NULL). */
export class Json {
  constructor(readonly value: unknown) {}
}
export const json = (value: unknown) => new Json(value);

function bind(dialect: Dialect, value: unknown): unknown {
  if (value === undefined) return null;
  if (value instanceof Date) return dialect === "postgres" ? value.toISOString() : value.toISOString().replace("Z", "+00:00");
  if (value instanceof Json) return value.value === undefined || value.value === null ? null : JSON.stringify(sanitizeDeep(value.value));
  if (typeof value === "string" || Array.isArray(value)) return sanitizeDeep(value);
  return value;
}

// pg's value preparation (what its send applies to every parameter; idempotent on what it returns). Exported by pg
// at run time as `utils`, not in its type declarations.
const pgValues = (pg as unknown as { utils: { prepareValue: (value: unknown) => unknown } }).utils;

// better-sqlite3 binds only anonymous `?` by position (no ?NNN): each $n becomes a `?` and the values are
// picked in that order (a parameter used twice is bound twice).
const sqliteText = new Map<string, { text: string; order: number[] }>();
function toSqlite(text: string): { text: string; order: number[] } {
  let out = sqliteText.get(text);
  if (out === undefined) {
    const order: number[] = [];
    const converted = text.replace(/::[a-z0-9_]+(\(\d+\))?/g, "").replace(/\$(\d+)/g, (_, n: string) => {
      order.push(Number(n) - 1);
      return "?";
    });
    out = { text: converted, order };
    sqliteText.set(text, out);
  }
  return out;
}

/**
 * The statements of a Prisma transaction, in SQL: for outcomes that also write through the model API. A caller may
 * ask for several statements before reading any answer (as transactSql pipelines them); here they still run one
 * after the other, in the order asked, since Prisma does not promise to keep the order of concurrent raw queries.
 */
export function sqlOf(tx: Tx): Sql {
  const dialect: Dialect = isPostgres() ? "postgres" : "sqlite";
  let previous: Promise<unknown> = Promise.resolve();
  const rows = <T>(text: string, params: unknown[] = []) => {
    const values = params.map((p) => bind(dialect, p));
    const run = () => {
      if (dialect === "postgres") return tx.$queryRawUnsafe<T[]>(text, ...values);
      const { text: sqlite, order } = toSqlite(text);
      return tx.$queryRawUnsafe<T[]>(sqlite, ...order.map((i) => values[i]));
    };
    const result = previous.then(run, run);
    previous = result.catch(() => undefined);
    return result;
  };
  return { dialect, pipelined: false, rows, write: async (text, params) => void (await rows(text, params)) };
}

/** The runner for a function that takes either a Prisma transaction or a runner. */
export function asSql(tx: Tx | Sql): Sql {
  return "rows" in tx && "dialect" in tx ? tx : sqlOf(tx);
}

/** `IN ($k, $k+1, …)` for a list bound from parameter number `first` on (SQLite has no arrays). */
export function inList(first: number, count: number): string {
  return `(${Array.from({ length: count }, (_, i) => `$${first + i}`).join(", ")})`;
}

// timestamp(3) columns hold UTC wall time (what Prisma writes); pg would read them as local time.
const TIMESTAMP_OID = 1114;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === TIMESTAMP_OID ? (v: string) => new Date(`${v.replace(" ", "T")}Z`) : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

const globalForPool = globalThis as unknown as { toolgatePgPools?: Map<string, pg.Pool> };

function pool(): pg.Pool {
  const url = loadConfig().DATABASE_URL;
  globalForPool.toolgatePgPools ??= new Map();
  let p = globalForPool.toolgatePgPools.get(url);
  if (!p) {
    // A statement waiting longer than Prisma's transaction timeout (client.ts) fails the outcome instead of
    // holding the audit chain's lock; idle connections do not keep a finished process alive.
    // Pipelined (pg's pipeline mode): a statement is sent when asked for, not after the previous one's answer, so
    // the statements of an outcome that do not depend on each other's answers share one round trip (transactSql).
    p = new pg.Pool({ connectionString: url, max: 10, statement_timeout: 15_000, allowExitOnIdle: true, types, pipeline: true });
    // An idle connection the server dropped (a restart, a forced drop): the pool opens a new one when asked.
    p.on("error", (error) => log("warn", "db_pool_connection_lost", { error: error.message }));
    globalForPool.toolgatePgPools.set(url, p);
  }
  return p;
}

// Rows read straight from better-sqlite3 come back as stored: DATETIME and JSONB columns (text) are decoded as
// Prisma decodes them, so a row reads the same whichever way it was fetched.
function decodeSqlite(statement: Statement, rows: Array<Record<string, unknown>>): Array<Record<string, unknown>> {
  const columns = statement.columns();
  for (const row of rows) {
    for (const { name, type } of columns) {
      const value = row[name];
      if (typeof value !== "string") continue;
      if (type === "DATETIME") row[name] = new Date(value.includes("T") ? value : `${value.replace(" ", "T")}Z`);
      else if (type === "JSONB") row[name] = JSON.parse(value);
    }
  }
  return rows;
}

type Statement = ReturnType<SqliteDriver["client"]["prepare"]>;
const statements = new WeakMap<object, Map<string, Statement>>();

/** A transaction on Prisma's own SQLite connection, taken with the adapter's lock: no Prisma round trip at all. */
async function transactSqlite<T>(driver: SqliteDriver, fn: (sql: Sql) => Promise<T>): Promise<T> {
  let cache = statements.get(driver.client);
  if (!cache) statements.set(driver.client, (cache = new Map()));
  const prepare = (text: string) => {
    let statement = cache.get(text);
    if (!statement) cache.set(text, (statement = driver.client.prepare(text).safeIntegers(false)));
    return statement;
  };
  let ended = false; // as in transactSql: no statement after the commit or the rollback
  const sql: Sql = {
    dialect: "sqlite",
    pipelined: false,
    rows: async <R>(text: string, params: unknown[] = []) => {
      if (ended) throw new Error("a statement was asked for after its transaction ended");
      const { text: sqlite, order } = toSqlite(text);
      const statement = prepare(sqlite);
      const values = order.map((i) => bind("sqlite", params[i]));
      if (!statement.reader) {
        statement.run(values);
        return [];
      }
      return decodeSqlite(statement, statement.all(values) as Array<Record<string, unknown>>) as R[];
    },
    write: async (text, params) => void (await sql.rows(text, params)),
  };
  const tx = await driver.startTransaction(); // runs BEGIN under the adapter's lock
  try {
    const result = await fn(sql);
    ended = true;
    prepare("COMMIT").run([]);
    await tx.commit();
    return result;
  } catch (error) {
    ended = true;
    try {
      prepare("ROLLBACK").run([]);
    } finally {
      await tx.rollback();
    }
    throw error;
  }
}

// The name is a hash of the text, not a counter: the pool is shared through globalThis, and Next.js can load this
// module more than once in one process (one copy per bundle), so two copies must give one text the same name and
// never give one name to two texts (pg refuses that, and the statement fails).
const names = new Map<string, string>();
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) names.set(text, (name = `toolgate_${createHash("sha256").update(text).digest("hex").slice(0, 32)}`));
  return name;
}

/**
 * How a transaction's commit reaches the disk. "flush" (the default) returns once the commit is on disk.
 * "deferred" returns once it is in PostgreSQL's log buffers (synchronous_commit off, for this transaction only):
 * a crash of the database server (not of this process) in the next few hundred milliseconds can lose it, whole,
 * and the next flushed commit of any connection puts it on disk first (the log is one sequence). For outcomes that
 * only record what already happened; recorder.ts says which. SQLite commits as it is configured.
 */
export type Commit = "flush" | "deferred";

/** Runs fn in one transaction with the SQL runner: everything it writes commits together or not at all. */
export async function transactSql<T>(fn: (sql: Sql) => Promise<T>, { commit = "flush" }: { commit?: Commit } = {}): Promise<T> {
  if (!isPostgres()) {
    const driver = await sqliteDriver(getDb());
    return driver ? transactSqlite(driver, fn) : transact((tx) => fn(sqlOf(tx)));
  }
  const client = await pool().connect();
  // The pool listens for errors only on idle connections: one lost while this transaction holds it (statements on
  // the wire, a server restart, a killed backend) would emit an "error" nobody listens to, thrown as an uncaught
  // exception. Its statements fail with it; the connection is closed on release, not reused.
  let lost: Error | undefined;
  const onLost = (error: Error) => void (lost ??= error);
  client.on("error", onLost);
  // Every statement sent, answered or not: the commit waits for all of them (a failed one rolls back). Each is
  // marked handled here, so one that fails while its caller is still reading an earlier answer is not reported
  // as an unhandled rejection; its caller still gets the error.
  const sent: Array<Promise<unknown>> = [];
  // A statement pg refused itself, not the database (anything but a DatabaseError): the connection's own idea of
  // its state may be wrong, so it is closed on release, not reused.
  let refused: Error | undefined;
  const send = <R>(query: Promise<R>): Promise<R> => {
    query.catch((error: unknown) => {
      if (!(error instanceof pg.DatabaseError)) refused ??= error instanceof Error ? error : new Error(String(error));
    });
    sent.push(query);
    return query;
  };
  // Once the commit or the rollback is sent, a statement would run outside the transaction (or on the next
  // borrower's connection): refused, whatever asks for it late.
  let ended = false;
  // A statement that failed before it went out (a value that could not be bound: a cycle, nesting deeper than the
  // stack): the database never saw it, so nothing there aborts the transaction, and a commit asked for without
  // reading its answer (recorder.ts) would keep everything else. The commit is refused instead.
  let unsent: unknown;
  const statement = (text: string, params: unknown[]) => {
    if (ended) throw new Error("a statement was asked for after its transaction ended");
    let values: unknown[];
    try {
      // pg turns values into text inside its own send (an array into an array literal, an object into its JSON),
      // where a failure (a BigInt, a cycle, a throwing toJSON) rejects the statement without the database seeing it
      // and leaves the connection believing in a prepared statement it closed. Done here, with pg's own function.
      values = params.map((p) => pgValues.prepareValue(bind("postgres", p)));
    } catch (error) {
      unsent ??= error;
      throw error;
    }
    // Named, so each connection parses and plans a statement once and then only binds and runs it.
    return send(client.query({ name: statementName(text), text, values }));
  };
  const sql: Sql = {
    dialect: "postgres",
    pipelined: true,
    rows: async <R>(text: string, params: unknown[] = []) => (await statement(text, params)).rows as R[],
    write: async (text, params = []) => {
      statement(text, params); // its answer is awaited with the commit's (sent, above)
    },
  };
  let broken: unknown;
  try {
    // Not waited for: the transaction's first statements follow it in the same round trip. A simple query may
    // hold several statements.
    send(client.query(commit === "deferred" ? "BEGIN; SET LOCAL synchronous_commit TO OFF" : "BEGIN"));
    const result = await fn(sql);
    if (unsent !== undefined) throw unsent;
    // The commit goes out behind whatever is still unanswered (writes nobody read, statements whose answers fn
    // reads later). A statement that failed has aborted the transaction, and PostgreSQL answers its COMMIT with a
    // rollback: its error is what is reported.
    ended = true;
    const answers = await Promise.allSettled([...sent, client.query("COMMIT")]);
    const failed = answers.find((answer) => answer.status === "rejected");
    if (failed) throw failed.reason;
    return result;
  } catch (error) {
    ended = true;
    await client.query("ROLLBACK").catch((e: unknown) => (broken = e));
    throw error;
  } finally {
    // A connection whose rollback failed is in an unknown state: it is closed, not reused.
    client.removeListener("error", onLost);
    client.release(broken instanceof Error ? broken : (lost ?? refused));
  }
}

let counter = Math.floor(Math.random() * 36 ** 4);
/**
 * A new row id in the shape of Prisma's cuid() (which Prisma makes inside its engine and does not export):
 * "c", the time in base 36, a counter and 16 random base-36 digits. Ids need only be unique and URL-safe;
 * the time prefix keeps them roughly ordered like Prisma's.
 */
export function newId(): string {
  counter = (counter + 1) % 36 ** 4;
  const random = Array.from(randomBytes(16), (b) => (b % 36).toString(36)).join("");
  return `c${Date.now().toString(36)}${counter.toString(36).padStart(4, "0")}${random}`;
}
