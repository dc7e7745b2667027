import "server-only";
// Liveness and readiness (GET /healthz, GET /readyz). Ready means this instance can serve a turn: the database
// answers, every migration this build ships is applied, the shell parser is loaded, the sandbox starts, and the
// event bus is listening. Each check is bounded by a deadline, so a database that does not answer makes the probe
// fail in time rather than hang the balancer's request. The answer names each check and a short public reason,
// never a host, a version, a path or a driver message.
import { countPendingApprovals, listAppliedMigrations, listShippedMigrations, pingDatabase } from "@/lib/db/health";
import { eventBusStatus } from "@/lib/events/bus";
import { loadShellParser } from "@/lib/exec/shell-parser";
import { probeSandbox } from "@/lib/tools/sandbox";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { listMcpServerStatus } from "@/lib/tools/mcp";
import { provideMetricSource } from "./metrics";
import { processSlots } from "@/lib/process-singleton";

const CHECK_TIMEOUT_MS = 2_000;

export type CheckResult = { ok: boolean; reason?: string };
export type Readiness = {
  ready: boolean;
  checks: Record<"database" | "migrations" | "shellParser" | "sandbox" | "eventBus", CheckResult>;
};

/** Probes within this long share one answer: a flood of unauthenticated /readyz costs one database round trip a second. */
const SHARED_MS = 1_000;

const globalForReady = processSlots<{
  toolgateMigrationsApplied?: boolean;
  toolgateReadiness?: { at: number; answer: Promise<Readiness> };
}>();

function within<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)),
      CHECK_TIMEOUT_MS,
    );
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function check(what: string, run: () => Promise<CheckResult>, failure: string): Promise<CheckResult> {
  try {
    return await within(run(), what);
  } catch (error) {
    // The public reason is ours; only our own timeout message (no host or driver text) is passed on.
    return { ok: false, reason: error instanceof Error && error.message.startsWith(what) ? error.message : failure };
  }
}

async function migrationsApplied(): Promise<CheckResult> {
  // Applied migrations are not un-applied: once all of this build's are there, the answer stays.
  if (globalForReady.toolgateMigrationsApplied) return { ok: true };
  const applied = new Set(await listAppliedMigrations());
  const missing = listShippedMigrations().filter((name) => !applied.has(name));
  if (missing.length)
    return { ok: false, reason: `${missing.length} migration(s) not applied (run node scripts/db.mjs migrate)` };
  globalForReady.toolgateMigrationsApplied = true;
  return { ok: true };
}

export function checkReadiness(): Promise<Readiness> {
  const last = globalForReady.toolgateReadiness;
  if (last && Date.now() - last.at < SHARED_MS) return last.answer;
  const answer = readinessNow();
  globalForReady.toolgateReadiness = { at: Date.now(), answer };
  return answer;
}

async function readinessNow(): Promise<Readiness> {
  const database = await check(
    "the database",
    async () => (await pingDatabase(), { ok: true }),
    "the database is unreachable",
  );
  const [migrations, shellParser, sandbox, eventBus] = await Promise.all([
    database.ok
      ? check("the migrations table", migrationsApplied, "the migrations could not be read")
      : Promise.resolve({ ok: false, reason: "the database is unreachable" }),
    check(
      "the shell parser",
      async () => (await loadShellParser(), { ok: true }),
      "the shell parser could not be loaded",
    ),
    check(
      "the sandbox",
      async () => ((await probeSandbox()).ok ? { ok: true } : { ok: false, reason: "bubblewrap cannot start here" }),
      "the sandbox probe failed",
    ),
    database.ok
      ? check("the event bus", eventBusStatus, "the event bus cannot start")
      : Promise.resolve({ ok: false, reason: "the database is unreachable" }),
  ]);
  const checks = { database, migrations, shellParser, sandbox, eventBus };
  return { ready: Object.values(checks).every((c) => c.ok), checks };
}

/** The metrics read at scrape time (pending approvals from the database, MCP upstreams from their supervisors). */
export function registerScrapeSources(): void {
  provideMetricSource("pendingApprovals", () => within(countPendingApprovals(), "the database"));
  provideMetricSource("mcpServers", () =>
    listMcpServerStatus(getToolRegistry()).map((s) => ({ id: s.id, state: s.state })),
  );
}
