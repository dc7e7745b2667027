import "server-only";
// Background work of every instance: expire due approvals, announce due escalations, assess old rows for risk.
// Safe on many instances at once: expiry is a conditional update, so is the risk backfill. Runs are not this
// module's concern: lib/runs hears approval.expired (an event written in the expiring transaction) and continues
// the run, so approvals never import the run engine.
import { log } from "@/lib/log";
import { sweepDueEscalations } from "./escalation";
import { backfillRiskKinds } from "./risk-backfill";
import { sweepExpiredApprovals } from "./service";
import { processSlots } from "@/lib/process-singleton";

const SWEEP_MS = 1_000;

export async function sweepOnce(): Promise<void> {
  await sweepExpiredApprovals();
  await sweepDueEscalations();
  await backfillRiskKinds();
}

const globalForWorker = processSlots<{ toolgateWorker?: boolean }>();

export function startApprovalWorker(): void {
  if (globalForWorker.toolgateWorker) return;
  globalForWorker.toolgateWorker = true;
  let sweeping = false;
  const sweep = setInterval(() => {
    if (sweeping) return;
    sweeping = true;
    sweepOnce()
      .catch((error) => log("warn", "approval_sweep_failed", { error: String(error) }))
      .finally(() => (sweeping = false));
  }, SWEEP_MS);
  sweep.unref();
}
