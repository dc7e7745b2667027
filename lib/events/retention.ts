import "server-only";
// The event log's retention (issue 29, finding 2): rows older than EVENT_RETENTION_SECONDS are pruned in the
// background by every instance (deleting is idempotent), and a stream resuming from before the window, from a pruned
// id, or from further back than EVENT_REPLAY_MAX_ROWS starts afresh instead of replaying (lib/events/sse.ts).
import { loadConfig } from "@/lib/config";
import { planReplay, pruneEventsBefore, type ReplayPlan } from "@/lib/db/event-retention";
import { log } from "@/lib/log";
import { processSlots } from "@/lib/process-singleton";

const BATCH = 5_000;

export function retentionWindowStart(now = Date.now()): Date {
  return new Date(now - loadConfig().EVENT_RETENTION_SECONDS * 1000);
}

export function replayPlanFor(since: number): Promise<ReplayPlan> {
  return planReplay({ since, maxRows: loadConfig().EVENT_REPLAY_MAX_ROWS, windowStart: retentionWindowStart() });
}

/** One pruning pass, in batches so no statement holds the table for long; returns the rows deleted. */
export async function pruneEvents(now = Date.now()): Promise<number> {
  const before = retentionWindowStart(now);
  let total = 0;
  for (;;) {
    const n = await pruneEventsBefore({ before, batch: BATCH });
    total += n;
    if (n < BATCH) break;
  }
  if (total > 0) log("info", "events_pruned", { rows: total, before: before.toISOString() });
  return total;
}

const globalForRetention = processSlots<{ toolgateEventPruning?: NodeJS.Timeout }>();

/** Prunes every quarter of the window (at most every 10 minutes, at least every second). */
export function startEventPruning(): void {
  if (globalForRetention.toolgateEventPruning) return;
  const every = Math.min(600_000, Math.max(1_000, (loadConfig().EVENT_RETENTION_SECONDS * 1000) / 4));
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    pruneEvents()
      .catch((error) => log("warn", "events_prune_failed", { error: String(error) }))
      .finally(() => (busy = false));
  };
  globalForRetention.toolgateEventPruning = setInterval(tick, every);
  globalForRetention.toolgateEventPruning.unref();
  tick();
}
