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
  // Exec layers a killed server left mid-command or mid-apply, before any command runs (lib/tools/overlay-recovery.ts).
  // eslint-disable-next-line no-restricted-syntax -- deferred load at the server entry point, see below
  const { recoverAllLayers } = await import("@/lib/tools/overlay-recovery");
  const layers = await recoverAllLayers(loadConfig().workspaceRoot).catch((error: unknown) => {
    console.error(`[toolgate] exec layer recovery failed: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  if (layers && layers.finished + layers.dropped > 0) console.log(`[toolgate] exec layers recovered: ${layers.finished} finished, ${layers.dropped} dropped`);
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
