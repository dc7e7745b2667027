import "server-only";
// Requests registered before Approval.riskKinds existed get their cues once, by the worker (issue 33), not in the
// migration: the cues come from the command's parse (tree-sitter, lib/exec/risk.ts), which SQL cannot do, and not
// on first read: the filter needs every row assessed, read or not. A batch per sweep keeps each sweep short; once
// a sweep finds none the instance stops looking (every row registered since carries its cues). Until a row is
// assessed, every risk filter shows it (lib/db/approvals.ts): never hidden, at worst listed once too often.
import { listUnassessedApprovals, storeRiskKinds } from "@/lib/db/approvals";
import { loadShellParser } from "@/lib/exec/shell-parser";
import { storedRiskKinds } from "./risk-view";

const BATCH = 500;
const state = globalThis as unknown as { toolgateRiskBackfillDone?: boolean };

/** Assesses one batch; the number of rows stored (0 when none was left). */
export async function backfillRiskKinds({ batch = BATCH }: { batch?: number } = {}): Promise<number> {
  if (state.toolgateRiskBackfillDone) return 0;
  const rows = await listUnassessedApprovals({ limit: batch });
  if (rows.length === 0) {
    state.toolgateRiskBackfillDone = true;
    return 0;
  }
  await loadShellParser();
  const byKinds = new Map<string, string[]>();
  for (const row of rows) {
    // A row the analysis cannot take is stored as "not analysed": read whole, never quietly cue-less.
    let kinds: string;
    try {
      kinds = storedRiskKinds(row);
    } catch {
      kinds = ",not-analysed,";
    }
    byKinds.set(kinds, [...(byKinds.get(kinds) ?? []), row.id]);
  }
  return storeRiskKinds({ byKinds });
}
