import "server-only";
// Anchoring the audit log in a witness (lib/audit/witness.ts), verifying against it, and re-anchoring after a restore.
//
// Anchoring runs in the background, every AUDIT_WITNESS_INTERVAL_MS: it reads the signed head the database has
// committed and, when it extends the witness's latest entry (the row that entry names is still there, with that
// hash), appends it. So the hot path never waits on the witness, a batch of appends costs one entry, and the witness
// never holds a state the database did not commit: a crash leaves it behind, never ahead. A head that does not extend
// the witness (the log was cut back, emptied or forked) is never written; it is logged as `audit_witness_mismatch`,
// and verification reports it until an operator re-anchors (npm run audit:reanchor, itself audited).
import { loadConfig } from "@/lib/config";
import { findAuditAnchorRow, syncCommits } from "@/lib/db/audit-anchor";
import {
  appendAudit,
  exportAuditCheckpoint,
  signCheckpoint,
  verifyAuditChain,
  type AuditCheckpoint,
} from "@/lib/db/audit";
import { log } from "@/lib/log";
import { auditLogId, signWitnessEntry, witnessSetting, type AuditWitness, type WitnessEntry } from "./witness";
import { FileWitness } from "./witness-file";
import { HttpWitness } from "./witness-http";
import { processSlots } from "@/lib/process-singleton";

/** The configured witness, or null when AUDIT_WITNESS=off. */
export function configuredWitness(): AuditWitness | null {
  const setting = witnessSetting();
  if (setting.kind === "off") return null;
  if (setting.kind === "webhook") return new HttpWitness(setting.url, loadConfig().AUDIT_WITNESS_TOKEN);
  return new FileWitness(setting.file);
}

/** Why the log does not reach the witness's entry, or null when it does (it holds that row, with that hash and count). */
export async function witnessProblem(entry: WitnessEntry, label: string): Promise<string | null> {
  const row = await findAuditAnchorRow({ seq: entry.seq });
  const recorded = `the witness (${label}) recorded row ${entry.seq} as row ${entry.count} of the log at ${entry.at}`;
  if (entry.count === 0) return null;
  if (!row)
    return `${recorded}, and the log no longer holds it: the log was emptied or cut back (after a restore from a backup, run npm run audit:reanchor)`;
  if (row.hash !== entry.headHash)
    return `${recorded}, and the row there now is a different one: the log was rewritten from there`;
  if (row.countUpTo !== entry.count)
    return `${recorded}, and the log now has ${row.countUpTo} rows up to it: rows before it were removed or added`;
  return null;
}

export type AnchorOutcome =
  { written: WitnessEntry } | { unchanged: true } | { mismatch: string } | { empty: true } | { notSynced: true };

let lastMismatch: string | null = null;

/** One anchoring pass: the committed, signed head goes to the witness when it extends the witness's latest entry. */
export async function anchorAudit(witness: AuditWitness, logId = auditLogId()): Promise<AnchorOutcome> {
  // The witness first, then the head: a head read later can only be further on.
  const latest = await witness.latest(logId);
  const head = await exportAuditCheckpoint();
  if (!head) {
    if (!latest || latest.count === 0) return { empty: true };
    return mismatch(
      `the log is empty, but the witness (${witness.label}) recorded ${latest.count} rows up to row ${latest.seq}`,
    );
  }
  if (signCheckpoint(head) !== head.signature)
    return mismatch("the stored checkpoint's signature is not valid; nothing is witnessed until the log verifies");
  if (latest) {
    if (latest.seq === head.seq && latest.headHash === head.headHash && latest.count === head.count)
      return { unchanged: true };
    if (head.count < latest.count)
      return mismatch(
        `the signed head names ${head.count} rows, fewer than the ${latest.count} the witness (${witness.label}) recorded: the log was cut back`,
      );
    const problem = await witnessProblem(latest, witness.label);
    if (problem) return mismatch(problem);
  }
  // The head read above must be on disk before the witness names it: a power loss must leave the witness behind.
  if (!(await syncCommits())) return { notSynced: true };
  const entry = signWitnessEntry({
    v: 1,
    logId,
    kind: "checkpoint",
    ...checkpointFields(head),
    witnessedAt: new Date().toISOString(),
  });
  await witness.append(entry);
  lastMismatch = null;
  return { written: entry };
}

function checkpointFields(head: AuditCheckpoint) {
  return { seq: head.seq, count: head.count, headHash: head.headHash, at: head.at, signature: head.signature };
}

function mismatch(problem: string): AnchorOutcome {
  // Logged once per distinct problem, not every few seconds.
  if (problem !== lastMismatch) log("error", "audit_witness_mismatch", { problem });
  lastMismatch = problem;
  return { mismatch: problem };
}

/**
 * A pass that could not sync (another reader holds the SQLite log back) writes nothing and is retried; passes that
 * keep failing would leave the witness behind without a word, so a run of them is logged once, and its end too.
 */
export const STALLED_PASSES = 10;
let unsyncedPasses = 0;
/** Exported for the test that holds the log back; the background anchoring calls it after every pass. */
export function reportStalled(outcome: AnchorOutcome): void {
  if ("notSynced" in outcome) {
    if (++unsyncedPasses === STALLED_PASSES)
      log("warn", "audit_witness_stalled", {
        passes: unsyncedPasses,
        reason: "the database log could not be synced; the witness is not advancing",
      });
    return;
  }
  if (unsyncedPasses >= STALLED_PASSES) log("info", "audit_witness_resumed", { afterPasses: unsyncedPasses });
  unsyncedPasses = 0;
}

const globalForAnchor = processSlots<{ toolgateAuditAnchor?: NodeJS.Timeout }>();

/** Starts the background anchoring of this process (once); a no-op with AUDIT_WITNESS=off. */
export function startAuditAnchoring(): void {
  const witness = configuredWitness();
  if (!witness || globalForAnchor.toolgateAuditAnchor) return;
  let busy = false;
  const tick = () => {
    if (busy) return;
    busy = true;
    anchorAudit(witness)
      .then(reportStalled)
      .catch((error) => log("warn", "audit_witness_failed", { witness: witness.label, error: String(error) }))
      .finally(() => (busy = false));
  };
  globalForAnchor.toolgateAuditAnchor = setInterval(tick, loadConfig().AUDIT_WITNESS_INTERVAL_MS);
  globalForAnchor.toolgateAuditAnchor.unref();
  tick();
}

export type WitnessedVerification = Awaited<ReturnType<typeof verifyAuditChain>> & {
  witness: { label: string; kind: WitnessEntry["kind"]; seq: number; count: number; at: string } | "none yet" | "off";
};

/**
 * The chain (every row, the signed head: lib/db/audit.ts), then the witness: the log must still hold the latest entry
 * the witness recorded. An emptied log, a log cut back to an older checkpoint (with that checkpoint's row restored)
 * and a head row replaced by an older one all verify on their own; against the witness each is reported.
 */
export async function verifyAuditWithWitness({
  witness = configuredWitness(),
  checkpoints,
}: { witness?: AuditWitness | null; checkpoints?: AuditCheckpoint[] } = {}): Promise<WitnessedVerification> {
  const latest = witness ? await witness.latest(auditLogId()) : null;
  const witnessInfo: WitnessedVerification["witness"] = !witness
    ? "off"
    : latest
      ? { label: witness.label, kind: latest.kind, seq: latest.seq, count: latest.count, at: latest.at }
      : "none yet";
  const chain = await verifyAuditChain({ checkpoints });
  if (!chain.ok || !witness || !latest) return { ...chain, witness: witnessInfo };
  const problem = await witnessProblem(latest, witness.label);
  if (problem) return { ok: false, seq: latest.seq, problem, witness: witnessInfo };
  return { ...chain, witness: witnessInfo };
}

/**
 * After a restore from a backup the log legitimately ends before the witness's latest entry, and verification says so
 * until an operator re-anchors: the chain must verify on its own, an `audit.reanchored` row records who, why and what
 * the witness held before, and a re-anchor entry naming the new head goes to the witness. Both stay: the witness
 * shows every re-anchor, the log shows it too.
 */
export async function reanchorAudit({
  reason,
  actor,
  witness = configuredWitness(),
}: {
  reason: string;
  actor: string;
  witness?: AuditWitness | null;
}): Promise<WitnessEntry> {
  if (!witness) throw new Error("AUDIT_WITNESS is off: there is no witness to re-anchor");
  if (!reason.trim()) throw new Error("a re-anchor needs a reason");
  const chain = await verifyAuditChain();
  if (!chain.ok)
    throw new Error(
      `the chain itself does not verify (row ${chain.seq}: ${chain.problem}); a re-anchor would cover that up`,
    );
  const logId = auditLogId();
  const previous = await witness.latest(logId);
  await appendAudit({
    action: "audit.reanchored",
    details: {
      reason,
      actor,
      witness: witness.label,
      previous: previous
        ? { seq: previous.seq, count: previous.count, headHash: previous.headHash, at: previous.at }
        : null,
      logEndedAt: chain.head ? { seq: chain.head.seq, count: chain.head.count } : null,
    },
  });
  const head = (await exportAuditCheckpoint())!;
  const entry = signWitnessEntry({
    v: 1,
    logId,
    kind: "reanchor",
    ...checkpointFields(head),
    witnessedAt: new Date().toISOString(),
    reason,
    actor,
    previous: previous ? { seq: previous.seq, count: previous.count, headHash: previous.headHash } : null,
  });
  if (!(await syncCommits()))
    throw new Error("the database is busy (its write-ahead log could not be synced to disk): try the re-anchor again");
  await witness.append(entry);
  log("warn", "audit_reanchored", {
    witness: witness.label,
    reason,
    actor,
    previous: entry.previous,
    seq: head.seq,
    count: head.count,
  });
  return entry;
}
