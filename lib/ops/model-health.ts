import "server-only";
// Model providers that refused this server's credentials lately (lib/runs/model-errors.ts audits each refusal): the
// admin home page lists them, so a wrong or revoked API key is seen by whoever can fix it, not only by the members
// whose turns failed. Read from the audit log, so every instance's refusals count.
import { listAuditEntries } from "@/lib/db/audit";

export const CREDENTIALS_REFUSED_ACTION = "model.credentials_refused";

/** How far back the admin page looks. */
export const REFUSALS_WINDOW_MS = 24 * 60 * 60 * 1000;
const MAX_ROWS_READ = 200;

export type ProviderRefusal = {
  provider: string;
  model: string | null;
  status: number | null;
  lastAt: Date;
  count: number;
};

/** One line per provider and model refused since `since` (newest first), with how many turns it failed. */
export async function listRecentCredentialRefusals({ now = new Date() }: { now?: Date } = {}): Promise<
  ProviderRefusal[]
> {
  const { entries } = await listAuditEntries({
    filter: { action: CREDENTIALS_REFUSED_ACTION, from: new Date(now.getTime() - REFUSALS_WINDOW_MS) },
    limit: MAX_ROWS_READ,
  });
  const byKey = new Map<string, ProviderRefusal>();
  for (const entry of entries) {
    const details = (entry.details ?? {}) as { provider?: unknown; model?: unknown; status?: unknown };
    const provider = typeof details.provider === "string" ? details.provider : "unknown";
    const model = typeof details.model === "string" ? details.model : null;
    const key = `${provider}\n${model ?? ""}`;
    const seen = byKey.get(key);
    if (seen) seen.count += 1;
    else
      byKey.set(key, {
        provider,
        model,
        status: typeof details.status === "number" ? details.status : null,
        lastAt: entry.at,
        count: 1,
      });
  }
  return [...byKey.values()];
}
