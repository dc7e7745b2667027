import "server-only";
// The audit log's anchor outside the database (issue 29, finding 1). The chain (lib/db/audit.ts) makes an edited or
// deleted row visible, and its signed head makes a cut-off tail visible, but both live in the database: whoever
// can write it can empty both tables, or cut the log back to an older head and put that head's row back, and the
// log verifies again. A witness keeps signed checkpoints where the database cannot reach (an append-only file under
// the data directory, or a webhook / second store shared by several instances), and verification asks the log to
// still hold the latest one.
//
// A witness entry is a checkpoint the database had committed (so a crash can leave the witness behind the log, never
// ahead of it: no false alarm), or a re-anchor: an operator's audited statement that the log was restored from a
// backup and now legitimately ends earlier. Entries carry the log's id, so one witness can serve several logs.
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import path from "node:path";
import { z } from "zod";
import { canonicalJson } from "@/lib/canonical-json";
import { loadConfig } from "@/lib/config";
import { auditKey } from "@/lib/db/audit-key";

export const WitnessEntrySchema = z.object({
  v: z.literal(1),
  logId: z.string().min(1).max(200),
  kind: z.enum(["checkpoint", "reanchor"]),
  seq: z.number().int().min(0),
  count: z.number().int().min(0),
  headHash: z.string().max(200),
  at: z.string().max(64),
  /** The database checkpoint's own signature (lib/db/audit.ts signCheckpoint): only the audit key makes one. */
  signature: z.string().max(200),
  witnessedAt: z.string().max(64),
  /** Re-anchor only: why, who, and the witness entry it replaces. */
  reason: z.string().max(2000).optional(),
  actor: z.string().max(200).optional(),
  previous: z
    .object({ seq: z.number().int(), count: z.number().int(), headHash: z.string().max(200) })
    .nullable()
    .optional(),
  /** HMAC over everything above with the audit key: a forged or edited entry does not count. */
  mac: z.string().max(200),
});
export type WitnessEntry = z.infer<typeof WitnessEntrySchema>;
export type UnsignedWitnessEntry = Omit<WitnessEntry, "mac">;

/** Where checkpoints go: append-only, and the latest entry of a log readable back. */
export interface AuditWitness {
  /** For messages: "file /var/lib/toolgate/audit-witness.jsonl", "webhook https://…". */
  readonly label: string;
  append(entry: WitnessEntry): Promise<void>;
  /** The last entry written for this log, or null when there is none. Entries that do not parse or verify are skipped. */
  latest(logId: string): Promise<WitnessEntry | null>;
}

export function macOf(entry: UnsignedWitnessEntry, key = auditKey()): string {
  return createHmac("sha256", key)
    .update("toolgate-audit-witness\n")
    .update(canonicalJson(entry as unknown as Record<string, unknown>))
    .digest("hex");
}

export function signWitnessEntry(entry: UnsignedWitnessEntry): WitnessEntry {
  return { ...entry, mac: macOf(entry) };
}

/** A line of a witness, if it is a well-formed entry signed with this audit key. */
export function readWitnessEntry(value: unknown): WitnessEntry | null {
  const parsed = WitnessEntrySchema.safeParse(value);
  if (!parsed.success) return null;
  const { mac, ...rest } = parsed.data;
  const expected = macOf(rest);
  return mac.length === expected.length && timingSafeEqual(Buffer.from(mac), Buffer.from(expected))
    ? parsed.data
    : null;
}

/**
 * Which log the entries belong to: AUDIT_WITNESS_LOG_ID, or a hash of the database's location (host, port, database
 * or file, without credentials or options). It comes from the configuration, never from the database, so emptying
 * or replacing the database cannot make it a new log the witness knows nothing about.
 */
export function auditLogId(): string {
  const c = loadConfig();
  if (c.AUDIT_WITNESS_LOG_ID) return c.AUDIT_WITNESS_LOG_ID;
  const url = c.DATABASE_URL;
  let where: string;
  if (url.startsWith("file:"))
    where = `sqlite:${path.resolve(/* turbopackIgnore: true */ process.cwd(), url.slice(5).split("?")[0]!)}`;
  else {
    const u = new URL(url);
    where = `postgres:${u.hostname}:${u.port || "5432"}${u.pathname}`;
  }
  return createHash("sha256").update(where).digest("hex").slice(0, 24);
}

export type WitnessSetting = { kind: "off" } | { kind: "file"; file: string } | { kind: "webhook"; url: string };

/** AUDIT_WITNESS: `off`, `file:<path>` (relative to the working directory) or an http(s) URL. */
export function witnessSetting(raw = loadConfig().AUDIT_WITNESS): WitnessSetting {
  if (raw === "off") return { kind: "off" };
  if (/^https?:\/\//.test(raw)) return { kind: "webhook", url: raw };
  return { kind: "file", file: path.resolve(/* turbopackIgnore: true */ process.cwd(), raw.replace(/^file:/, "")) };
}
