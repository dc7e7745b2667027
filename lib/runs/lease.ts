import "server-only";
// The run lease, seen from one instance. The truth is in the database (lib/db/runs.ts): this module only
// remembers which runs this instance holds, so its heartbeat can renew their leases and so a stop requested on
// any instance (a column, plus a run.stop event for speed) reaches the controller that can abort the run.
import os from "node:os";
import { randomBytes } from "node:crypto";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { renewLeases } from "@/lib/db/runs";
import { subscribeEvents } from "@/lib/events/bus";
import { processSlots } from "@/lib/process-singleton";

type Held = { controller: AbortController; done?: Promise<unknown> };
const globalForLease = processSlots<{
  toolgateInstanceId?: string;
  toolgateHeldRuns?: Map<string, Held>;
  toolgateHeartbeat?: NodeJS.Timeout;
  toolgateStopListener?: Promise<unknown>;
}>();

/**
 * This instance's name in leases: host and pid first, so a restarted server can tell its dead predecessor. Kept on
 * globalThis like the held runs: Next.js bundles this module into several chunks (routes, instrumentation), and a
 * name per copy made the shared heartbeat take a run claimed by another copy for lost, and abort it.
 */
export const INSTANCE_ID =
  (globalForLease.toolgateInstanceId ??= `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`);

export function leaseMs(): number {
  return loadConfig().RUN_LEASE_SECONDS * 1000;
}

const held = (globalForLease.toolgateHeldRuns ??= new Map<string, Held>());

/** Registers a run this instance now holds; the returned function lets go of it. */
export function holdRun(runId: string, controller: AbortController): () => void {
  held.set(runId, { controller });
  ensureHeartbeat();
  listenForStops();
  return () => {
    if (held.get(runId)?.controller === controller) held.delete(runId);
  };
}

export function setRunDone(runId: string, done: Promise<unknown>) {
  const h = held.get(runId);
  if (h) h.done = done;
}

export function heldRun(runId: string): Held | undefined {
  return held.get(runId);
}

export function heldRunIds(): string[] {
  return [...held.keys()];
}

/** Aborts a run held here; false when it is not held by this instance. */
export function abortHeldRun(runId: string): boolean {
  const h = held.get(runId);
  if (!h) return false;
  h.controller.abort();
  return true;
}

export async function heartbeatOnce(): Promise<void> {
  const ids = heldRunIds();
  if (ids.length === 0) return;
  const rows = await renewLeases({ owner: INSTANCE_ID, runIds: ids, leaseMs: leaseMs() });
  for (const row of rows) {
    // A stop asked on another instance, or a lease lost (another instance failed the run as abandoned after
    // this one stalled): either way this run must not go on here.
    const lost = row.status === "running" && row.leaseOwner !== INSTANCE_ID;
    if (row.stopRequestedAt || lost) {
      if (lost) log("warn", "run_lease_lost", { runId: row.id, owner: row.leaseOwner });
      abortHeldRun(row.id);
    }
  }
}

function ensureHeartbeat() {
  if (globalForLease.toolgateHeartbeat) return;
  // A third of the lease: two heartbeats can fail before another instance may take the run for abandoned.
  const every = Math.max(500, Math.floor(leaseMs() / 3));
  globalForLease.toolgateHeartbeat = setInterval(() => {
    heartbeatOnce().catch((error) => log("warn", "run_heartbeat_failed", { error: String(error) }));
  }, every);
  globalForLease.toolgateHeartbeat.unref();
}

/** The fast path of Stop across instances: a run.stop event aborts the run at once where it is held. */
function listenForStops() {
  globalForLease.toolgateStopListener ??= subscribeEvents((event) => {
    const runId = (event.payload as { runId?: string } | null)?.runId;
    if (event.type === "run.stop" && runId) abortHeldRun(runId);
  }).catch((error) => {
    globalForLease.toolgateStopListener = undefined;
    log("warn", "stop_listener_failed", { error: String(error) });
  });
}
