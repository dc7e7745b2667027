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
  // Expire approvals and resume paused runs (also those paused before a restart).
  const { startApprovalWorker } = await import("@/lib/approvals/worker");
  startApprovalWorker();
}
