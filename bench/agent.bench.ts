// Agent loop benchmark: execution-gate overhead per tool call (policy check + audit write) on SQLite and
// PostgreSQL, and whole turns per second with the offline model at 1, 10 and 100 concurrent sessions.
// Each measurement runs in a worker process on a fresh, migrated and seeded database, because lib/config
// reads DATABASE_URL once per process.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { newPostgresUrl, newSqliteUrl, prepareDatabase, reachablePostgresBase } from "../tests/support/databases";

const ROOT = path.resolve(__dirname, "..");
const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";

type Stats = { n: number; p50: number; p99: number; mean: number };
type GateResult = { checkOnly: Stats; withAudit: Stats };
type RecordResult = { legacy: Stats; outcome: Stats; floor: Stats };
type TurnsResult = { concurrency: number; turns: number; seconds: number; turnsPerSecond: number; latency: Stats; failures: number };

function worker<T>(databaseUrl: string, args: string[], tree = ROOT): T {
  const out = execFileSync(path.join(ROOT, "node_modules/.bin/tsx"), ["--conditions=react-server", "bench/agent-bench-worker.ts", ...args], {
    cwd: tree,
    env: { ...process.env, DATABASE_URL: databaseUrl, NODE_ENV: "production", AUTH_SECRET: "bench-only-secret-0123456789abcdef" },
    stdio: ["ignore", "pipe", "inherit"],
    maxBuffer: 64 * 1024 * 1024,
  }).toString();
  const last = out.trim().split("\n").filter((l) => l.startsWith("{")).at(-1);
  if (!last) throw new Error(`the bench worker printed no result:\n${out}`);
  return JSON.parse(last) as T;
}


const f = (n: number) => (n < 1 ? n.toFixed(3) : n.toFixed(2));
const ratio = (after: number, before: number) => `${(after / before).toFixed(2)}×`;

/**
 * The code at BENCH_BASELINE (a git ref, e.g. the commit before a change), unpacked beside this checkout with its
 * own generated clients and this checkout's node_modules, so "before" and "after" run in one benchmark run on the
 * same machine. Its worker runs against databases migrated by this checkout (new columns are unused by it).
 */
function baselineTree(ref: string | undefined): string | null {
  if (!ref) return null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-baseline-"));
  execFileSync("sh", ["-c", `git archive "$REF" | tar -x -C "$DIR"`], { cwd: ROOT, env: { ...process.env, REF: ref, DIR: dir } });
  fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
  execFileSync("node", ["scripts/db.mjs", "generate"], { cwd: dir, stdio: "ignore" });
  return dir;
}

export async function runAgentBench(): Promise<string> {
  const lines = ["## Agent loop", ""];
  const gateRows: string[] = [];
  const databases: Array<{ kind: string; url: string; drop?: () => Promise<void> }> = [];
  const sqlite = newSqliteUrl();
  prepareDatabase(sqlite);
  databases.push({ kind: "SQLite", url: sqlite });
  const journal = new Database(sqlite.slice("file:".length), { readonly: true });
  const journalMode = String(journal.pragma("journal_mode", { simple: true }));
  journal.close();
  const pgBase = await reachablePostgresBase(process.env.TEST_DATABASE_URL_PG ?? PG_DEFAULT);
  if (pgBase) {
    const pg = await newPostgresUrl(pgBase);
    prepareDatabase(pg.url);
    databases.push({ kind: "PostgreSQL", url: pg.url, drop: pg.drop });
  }
  const baselineRef = process.env.BENCH_BASELINE;
  const baseline = baselineTree(baselineRef);
  try {
    const recordRows: string[] = [];
    for (const db of databases) {
      const r = worker<RecordResult>(db.url, ["record", "1000"]);
      recordRows.push(
        `| ${db.kind} | ${f(r.legacy.p50)} | ${f(r.legacy.p99)} | ${f(r.outcome.p50)} | ${f(r.outcome.p99)} | ${ratio(r.outcome.p50, r.legacy.p50)} | ${ratio(r.outcome.p99, r.legacy.p99)} | ${f(r.floor.p50)} | ${f(r.floor.p99)} |`,
      );
    }
    lines.push(
      "### Gate + record of one allowed call, before and after one transaction per outcome",
      "",
      "Both ways in the same process, alternating per call, on the same database. Before: the gate check, the audit row and the transcript line written one after another, by the code the loop used before issue 11 (kept as it was in bench/legacy-record.ts: Prisma model queries, three commits). After: the gate check, the claim (the call id inserted as running + audit row + event, one transaction) and the result (call → done + transcript line + event, one transaction whose commit does not wait for the disk on PostgreSQL), through lib/db/sql.ts. 1000 calls each after 100 warm-up calls. Floor: one flushed and one deferred one-row commit (an upsert each, in its own transaction), measured in the same loop: what any claim and result must at least cost on this machine, since the claim and its audit row must be on disk before the call runs.",
      "",
      "| database | before p50 (ms) | before p99 (ms) | after p50 (ms) | after p99 (ms) | p50 after/before | p99 after/before | floor p50 (ms) | floor p99 (ms) |",
      "|---|---|---|---|---|---|---|---|---|",
      ...recordRows,
      "",
    );
    for (const db of databases) {
      const r = worker<GateResult>(db.url, ["gate", "2000"]);
      gateRows.push(`| ${db.kind} | gate check only | ${r.checkOnly.n} | ${f(r.checkOnly.p50)} | ${f(r.checkOnly.p99)} |`);
      gateRows.push(`| ${db.kind} | gate check + audit write | ${r.withAudit.n} | ${f(r.withAudit.p50)} | ${f(r.withAudit.p99)} |`);
    }
    lines.push(
      "### Execution gate overhead per tool call",
      "",
      "One call = `checkToolCall` against the turn's effective policy (half allowed `current_time`, half `MODE_DENIED` `read`) plus the hash-chained audit row (`appendAudit`, serialised; on PostgreSQL a lock on the chain's head row). Sequential calls, after 100 warm-up calls.",
      `SQLite journal mode: \`${journalMode}\` (set by the migration step; the database commit, not the policy check, is most of the cost).${pgBase ? "" : " PostgreSQL was not reachable, so only SQLite was measured."}`,
      "",
      "| database | measured | calls | p50 (ms) | p99 (ms) |",
      "|---|---|---|---|---|",
      ...gateRows,
      "",
    );
    const turnRows: string[] = [];
    for (const [concurrency, perSession] of [
      [1, 40],
      [10, 8],
      [100, 2],
    ] as const) {
      const url = newSqliteUrl();
      prepareDatabase(url);
      const r = worker<TurnsResult>(url, ["turns", String(concurrency), String(perSession)]);
      let before = "";
      if (baseline) {
        const old = newSqliteUrl();
        prepareDatabase(old);
        const b = worker<TurnsResult>(old, ["turns", String(concurrency), String(perSession)], baseline);
        before = ` ${b.turnsPerSecond.toFixed(1)} | ${ratio(r.turnsPerSecond, b.turnsPerSecond)} | ${b.failures} |`;
      }
      turnRows.push(`| ${concurrency} | ${r.turns} | ${r.seconds.toFixed(2)} | ${r.turnsPerSecond.toFixed(1)} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${r.failures} |${before}`);
    }
    lines.push(
      "### Turns per second (offline model, SQLite)",
      "",
      "`runTurn` called directly (no HTTP) for \"what time is it\": policy and mode read, two model steps, one gated `current_time` call, four messages and one audit row persisted. Sessions run concurrently, each its turns one after another.",
      "",
      ...(baseline ? [`Before = the code at \`${baselineRef}\` (BENCH_BASELINE), run in the same benchmark run on a fresh database of its own.`, ""] : []),
      `| concurrent sessions | turns | seconds | turns/s | turn latency p50 (ms) | p99 (ms) | failed |${baseline ? " turns/s before | after/before | failed before |" : ""}`,
      `|---|---|---|---|---|---|---|${baseline ? "---|---|---|" : ""}`,
      ...turnRows,
      "",
    );
  } finally {
    for (const db of databases) await db.drop?.().catch(() => undefined);
    if (baseline) fs.rmSync(baseline, { recursive: true, force: true });
  }
  return lines.join("\n");
}
