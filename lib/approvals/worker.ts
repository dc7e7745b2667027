import "server-only";
// Background work of every instance: expire due approvals and resume runs whose approvals are settled.
// Safe to run on many instances at once: expiry and run claims are conditional updates.
import { log } from "@/lib/log";
import { resumeReadyRuns, resumeRun } from "@/lib/agent/resume";
import { sweepExpiredApprovals } from "./service";

const SWEEP_MS = 1_000;
const RECOVER_MS = 15_000;

export async function sweepOnce(): Promise<void> {
  const expired = await sweepExpiredApprovals();
  for (const runId of new Set(expired.map((a) => a.runId).filter((id): id is string => Boolean(id)))) {
    await resumeRun({ runId });
  }
}

/** Resumes the run of a decided approval without holding up the HTTP response. */
export function resumeInBackground(runId: string | null | undefined): void {
  if (!runId) return;
  resumeRun({ runId }).catch((error) => log("error", "resume_failed", { runId, error: String(error) }));
}

const globalForWorker = globalThis as unknown as { toolgateWorker?: boolean };

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
  const recover = () => resumeReadyRuns().catch((error) => log("warn", "run_recovery_failed", { error: String(error) }));
  void recover();
  setInterval(recover, RECOVER_MS).unref();
}
