import "server-only";
// Background work of the run engine on every instance: continue a paused run as soon as its approvals are
// settled (heard as approval.resolved / approval.expired events, from any instance), fail runs whose instance
// died, and every so often resume whatever is ready (a missed event, a restart). All of it is conditional
// updates, so any number of instances may do it at once.
import { log } from "@/lib/log";
import { subscribeEvents } from "@/lib/events/bus";
import { leaseMs } from "./lease";
import { deferOverdueRuns } from "./deferred";
import { failAbandonedRuns } from "./recovery";
import { resumeReadyRuns, resumeWhenReady } from "./resume";
import { processSlots } from "@/lib/process-singleton";

const RECOVER_MS = 15_000;
const DEFER_SWEEP_MS = 1_000;
const globalForWorker = processSlots<{ toolgateRunWorker?: boolean }>();

export async function startRunWorker(): Promise<void> {
  if (globalForWorker.toolgateRunWorker) return;
  globalForWorker.toolgateRunWorker = true;
  await subscribeEvents((event) => {
    if (event.type !== "approval.resolved" && event.type !== "approval.expired") return;
    const runId = (event.payload as { runId?: string | null } | null)?.runId;
    if (runId) void resumeWhenReady(runId);
  });
  // At start-up: runs this host's previous process left running are failed now, before anything resumes.
  await failAbandonedRuns().catch((error) => log("warn", "run_recovery_failed", { error: String(error) }));
  const recover = () =>
    resumeReadyRuns().catch((error) => log("warn", "run_recovery_failed", { error: String(error) }));
  void recover();
  setInterval(recover, RECOVER_MS).unref();
  let sweeping = false;
  setInterval(
    () => {
      if (sweeping) return;
      sweeping = true;
      failAbandonedRuns()
        .catch((error) => log("warn", "abandoned_sweep_failed", { error: String(error) }))
        .finally(() => (sweeping = false));
    },
    Math.max(1_000, Math.floor(leaseMs() / 3)),
  ).unref();
  // Turns that waited for an owner longer than APPROVAL_TURN_WAIT_SECONDS end pending (lib/runs/deferred.ts).
  let deferring = false;
  setInterval(() => {
    if (deferring) return;
    deferring = true;
    deferOverdueRuns()
      .catch((error) => log("warn", "defer_sweep_failed", { error: String(error) }))
      .finally(() => (deferring = false));
  }, DEFER_SWEEP_MS).unref();
}
