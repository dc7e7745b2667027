import { chmodSync, existsSync } from "node:fs";
import { ConfigError, loadConfig } from "@/lib/config";

/** Called once by instrumentation.ts in the Node.js runtime. */
export async function startServer(): Promise<void> {
  try {
    loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[toolgate] ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  protectSqliteFiles(loadConfig().DATABASE_URL);
  await refuseUnmigratedDatabase();
  // Sandboxes a killed server of this workspace root left running, and their egress directories: first, so the
  // layers they kept busy can be recovered below (lib/tools/sandbox-reaper.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see below
  const { claimSandboxScope, reapOrphanedSandboxes } = await import("@/lib/tools/sandbox-reaper");
  claimSandboxScope(loadConfig().workspaceRoot);
  const reaped = await reapOrphanedSandboxes(loadConfig().workspaceRoot).catch((error: unknown) => {
    console.error(
      `[toolgate] reaping orphaned sandboxes failed: ${error instanceof Error ? error.message : String(error)}`,
    );
    return null;
  });
  if (reaped && reaped.sandboxes + reaped.egressDirs > 0)
    console.log(
      `[toolgate] a stopped server's sandboxes reaped: ${reaped.sandboxes} process(es) killed, ${reaped.egressDirs} egress director(ies) removed`,
    );
  // Exec layers a killed server left mid-command or mid-apply, before any command runs (lib/tools/overlay-recovery.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see below
  const { recoverAllLayers } = await import("@/lib/tools/overlay-recovery");
  const layers = await recoverAllLayers(loadConfig().workspaceRoot).catch((error: unknown) => {
    console.error(`[toolgate] exec layer recovery failed: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  if (layers && layers.finished + layers.dropped > 0)
    console.log(`[toolgate] exec layers recovered: ${layers.finished} finished, ${layers.dropped} dropped`);
  // Expire approvals; fail runs a dead instance left behind, and resume paused runs (also after a restart). Loaded
  // only when serving, not during `next build` (which also runs instrumentation): the worker pulls in the database
  // layer. Not a cycle.
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startApprovalWorker } = await import("@/lib/approvals/worker");
  startApprovalWorker();
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startNotificationSender } = await import("@/lib/notify/sender");
  startNotificationSender();
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startRunWorker } = await import("@/lib/runs/worker");
  await startRunWorker();
  // Signed audit checkpoints to the witness outside the database, in the background (lib/audit/anchor.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startAuditAnchoring } = await import("@/lib/audit/anchor");
  startAuditAnchoring();
  // The event log's retention window (lib/events/retention.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startEventPruning } = await import("@/lib/events/retention");
  startEventPruning();
  // Expired OAuth codes and tokens (lib/oauth/prune.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see above
  const { startOAuthPruning } = await import("@/lib/oauth/prune");
  startOAuthPruning();
}

/**
 * The SQLite file holds every transcript, password hash and approval: readable by the server's user only, so a
 * command running on the host (an admin's exec.host setting, as an unprivileged uid) cannot read it. SQLite gives
 * its -wal and -shm files the database file's mode.
 */
function protectSqliteFiles(databaseUrl: string): void {
  if (!databaseUrl.startsWith("file:")) return;
  const file = databaseUrl.slice("file:".length).split("?")[0]!;
  for (const path of [file, `${file}-wal`, `${file}-shm`]) {
    if (existsSync(/*turbopackIgnore: true*/ path)) chmodSync(/*turbopackIgnore: true*/ path, 0o600);
  }
}

/**
 * A database this build's migrations have not all reached would fail requests and background sweeps one by one
 * (a missing table or column each time): stop start-up instead, naming the fix. A database that does not answer
 * is not refused: it may come up after us, and /readyz reports it meanwhile (as it reports a database migrated
 * backwards while we run).
 */
async function refuseUnmigratedDatabase(): Promise<void> {
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see startServer
  const { listMissingMigrations } = await import("@/lib/db/health");
  const missing = await listMissingMigrations();
  if (missing === null) {
    console.error("[toolgate] the database does not answer yet; starting anyway (/readyz reports it until it does)");
    return;
  }
  if (missing.length === 0) return;
  console.error(
    `[toolgate] the database lacks ${missing.length} migration(s) of this build (first: ${missing[0]}): run \`npm run db:migrate\` (node scripts/db.mjs migrate) with the same DATABASE_URL, then start again`,
  );
  process.exit(1);
}
