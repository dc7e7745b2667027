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
import { stats, type Stats } from "./stats";

const ROOT = path.resolve(__dirname, "..");
const PG_DEFAULT = "postgresql://postgres@127.0.0.1:5432/postgres";

type GateResult = { checkOnly: Stats; withAudit: Stats };
type RecordResult = { samples: number[] };
type RecordPath = "legacy" | "outcome" | "floor";
const RECORD_PATHS: RecordPath[] = ["outcome", "legacy", "floor"];
const RECORD_ROUNDS = 3;
// Measured: calls 3,000–3,999 of a process (its steady state: a server that has run a while; in a new process the
// JIT and the heap's growth take a few thousand calls to settle) and, for comparison, calls 200–1,199.
const STEADY_FROM = 3000;
const EARLY_FROM = 200;
const RECORD_CALLS = 1000;
const LONG_RUN = 10_000;

type TurnsResult = {
  concurrency: number;
  turns: number;
  seconds: number;
  turnsPerSecond: number;
  latency: Stats;
  failures: number;
};

function worker<T>(databaseUrl: string, args: string[], tree = ROOT): T {
  const out = execFileSync(
    path.join(ROOT, "node_modules/.bin/tsx"),
    ["--conditions=react-server", "bench/agent-bench-worker.ts", ...args],
    {
      cwd: tree,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        NODE_ENV: "production",
        AUTH_SECRET: "bench-only-secret-0123456789abcdef",
      },
      stdio: ["ignore", "pipe", "inherit"],
      maxBuffer: 64 * 1024 * 1024,
    },
  ).toString();
  const last = out
    .trim()
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .at(-1);
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
  execFileSync("sh", ["-c", `git archive "$REF" | tar -x -C "$DIR"`], {
    cwd: ROOT,
    env: { ...process.env, REF: ref, DIR: dir },
  });
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
    const longRunRows: string[] = [];
    for (const db of databases) {
      // Each path alone in its own process, the three taking turns over one database, so tables grow alike for all
      // and none is charged another's garbage collection or background writes. Samples pooled over the rounds.
      const record = (path: RecordPath, settled = 0) =>
        worker<RecordResult>(db.url, ["record", path, String(STEADY_FROM + RECORD_CALLS), "0", String(settled)])
          .samples;
      const steady: Record<RecordPath, number[]> = { legacy: [], outcome: [], floor: [] };
      const early: Record<RecordPath, number[]> = { legacy: [], outcome: [], floor: [] };
      for (let round = 0; round < RECORD_ROUNDS; round += 1) {
        for (const path of RECORD_PATHS) {
          const samples = record(path);
          steady[path].push(...samples.slice(STEADY_FROM));
          early[path].push(...samples.slice(EARLY_FROM, EARLY_FROM + RECORD_CALLS));
        }
      }
      const [legacy, outcome, floor] = [stats(steady.legacy), stats(steady.outcome), stats(steady.floor)];
      const [legacyEarly, outcomeEarly] = [stats(early.legacy), stats(early.outcome)];
      recordRows.push(
        `| ${db.kind} | ${f(legacy.p50)} | ${f(legacy.p99)} | ${f(outcome.p50)} | ${f(outcome.p99)} | ${ratio(outcome.p50, legacy.p50)} | ${ratio(outcome.p99, legacy.p99)} | ${f(floor.p50)} | ${f(floor.p99)} | ${f(legacyEarly.p99)} | ${f(outcomeEarly.p99)} |`,
      );
      const fresh = stats(record("outcome").slice(STEADY_FROM));
      const long = stats(record("outcome", LONG_RUN).slice(STEADY_FROM));
      longRunRows.push(
        `| ${db.kind} | ${f(fresh.p50)} | ${f(fresh.p99)} | ${f(long.p50)} | ${f(long.p99)} | ${ratio(long.p50, fresh.p50)} |`,
      );
    }
    lines.push(
      "### Gate + record of one allowed call, before and after one transaction per outcome",
      "",
      `Before: the gate check, the audit row and the transcript line written one after another, by the code the loop used before issue 11 (kept as it was in bench/legacy-record.ts: Prisma model queries, three commits). After: the gate check, the claim (the call id inserted as running + audit row + event, one transaction) and the result (call → done + transcript line + event, one transaction), each one interactive Prisma transaction (lib/runs/store.ts). Floor: two one-row commits (a Prisma upsert each, in its own transaction): what any claim and result must at least cost on this machine, since both are on disk before the call goes on. Each of the three runs alone in a process of its own, the three taking turns over one database, ${RECORD_ROUNDS} rounds. Measured: calls ${STEADY_FROM.toLocaleString("en")}–${(STEADY_FROM + RECORD_CALLS - 1).toLocaleString("en")} of each process (a server that has run a while), ${(RECORD_ROUNDS * RECORD_CALLS).toLocaleString("en")} calls each, pooled; the last two columns are calls ${EARLY_FROM.toLocaleString("en")}–${(EARLY_FROM + RECORD_CALLS - 1).toLocaleString("en")} of the same processes (a server just started).`,
      "",
      "| database | before p50 (ms) | before p99 (ms) | after p50 (ms) | after p99 (ms) | p50 after/before | p99 after/before | floor p50 (ms) | floor p99 (ms) | just started: before p99 (ms) | just started: after p99 (ms) |",
      "|---|---|---|---|---|---|---|---|---|---|---|",
      ...recordRows,
      "",
      `The same for a call late in a long run: ${LONG_RUN.toLocaleString("en")} calls of the run settled before (each claim asks whether a call of its run is still running), against a fresh run, one process each, measured as above.`,
      "",
      "| database | fresh run p50 (ms) | fresh run p99 (ms) | long run p50 (ms) | long run p99 (ms) | p50 long/fresh |",
      "|---|---|---|---|---|---|",
      ...longRunRows,
      "",
    );
    for (const db of databases) {
      const r = worker<GateResult>(db.url, ["gate", "2000"]);
      gateRows.push(
        `| ${db.kind} | gate check only | ${r.checkOnly.n} | ${f(r.checkOnly.p50)} | ${f(r.checkOnly.p99)} |`,
      );
      gateRows.push(
        `| ${db.kind} | gate check + audit write | ${r.withAudit.n} | ${f(r.withAudit.p50)} | ${f(r.withAudit.p99)} |`,
      );
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
      turnRows.push(
        `| ${concurrency} | ${r.turns} | ${r.seconds.toFixed(2)} | ${r.turnsPerSecond.toFixed(1)} | ${f(r.latency.p50)} | ${f(r.latency.p99)} | ${r.failures} |${before}`,
      );
    }
    lines.push(
      "### Turns per second (offline model, SQLite)",
      "",
      '`runTurn` called directly (no HTTP) for "what time is it": policy and mode read, two model steps, one gated `current_time` call, four messages and one audit row persisted. Sessions run concurrently, each its turns one after another.',
      "",
      ...(baseline
        ? [
            `Before = the code at \`${baselineRef}\` (BENCH_BASELINE), run in the same benchmark run on a fresh database of its own.`,
            "",
          ]
        : []),
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
