import "server-only";
// Expired codes and tokens, and revoked grants with nothing left under them, are deleted every
// OAUTH_PRUNE_INTERVAL_SECONDS (each instance; the deletes are idempotent). Used or revoked rows stay a day, so a
// replayed code or refresh token is still recognised as a replay (and ends its grant) for that long.
import { loadConfig } from "@/lib/config";
import { pruneOAuth } from "@/lib/db/oauth";
import { log } from "@/lib/log";
import { processSlots } from "@/lib/process-singleton";

const KEEP_SPENT_MS = 86_400_000;

export function pruneOAuthNow(now = new Date()) {
  return pruneOAuth({ now, keepRevokedMs: KEEP_SPENT_MS });
}

const globalForPrune = processSlots<{ toolgateOAuthPruning?: ReturnType<typeof setInterval> }>();

export function startOAuthPruning(): void {
  if (globalForPrune.toolgateOAuthPruning) return;
  const every = loadConfig().OAUTH_PRUNE_INTERVAL_SECONDS * 1000;
  const tick = () => {
    pruneOAuthNow()
      .then((removed) => {
        if (removed.codes + removed.tokens + removed.grants > 0) log("info", "oauth_pruned", removed);
      })
      .catch((error: unknown) =>
        log("warn", "oauth_prune_failed", { error: error instanceof Error ? error.message : String(error) }),
      );
  };
  globalForPrune.toolgateOAuthPruning = setInterval(tick, every);
  globalForPrune.toolgateOAuthPruning.unref();
  tick();
}
