import "server-only";
// The audit log for admins: filtered, cursor-paginated on the server, and the chain check.
import { verifyAuditWithWitness } from "@/lib/audit/anchor";
import { appendAudit, exportAuditCheckpoint, listAuditEntries } from "@/lib/db/audit";
import { findUserIdsByEmailPart, listUsersByIds } from "@/lib/db/users";
import type { z } from "zod";
import type { AuditExportQuery, AuditQuery } from "./schemas";
import type { AsJson } from "@/lib/as-json";
import type { AuditResponse } from "./audit-views";

/** "user" is any part of an e-mail ("alice", "@example.com"), case-insensitive, or a user id. */
async function actorFilter(user: string | undefined): Promise<string[] | undefined> {
  if (!user) return undefined;
  return [user, ...(await findUserIdsByEmailPart({ part: user }))];
}

export async function searchAudit(query: z.output<typeof AuditQuery>) {
  const actorId = await actorFilter(query.user);
  const { entries, nextCursor } = await listAuditEntries({
    filter: {
      actorId,
      sessionId: query.session,
      toolName: query.tool,
      decision: query.decision,
      layer: query.layer,
      action: query.action,
      from: query.from,
      to: query.to,
    },
    cursor: query.cursor,
    limit: query.limit,
  });
  const emails = new Map(
    (await listUsersByIds({ ids: [...new Set(entries.flatMap((e) => (e.actorId ? [e.actorId] : [])))] })).map((u) => [
      u.id,
      u.email,
    ]),
  );
  return {
    entries: entries.map((e) => ({
      seq: e.seq,
      at: e.at.toISOString(),
      action: e.action,
      actorId: e.actorId,
      actorEmail: e.actorId ? (emails.get(e.actorId) ?? null) : null,
      sessionId: e.sessionId,
      toolName: e.toolName,
      callId: e.callId,
      decision: e.decision,
      layer: e.layer,
      rule: e.rule,
      details: e.details,
    })),
    nextCursor: nextCursor ?? null,
  };
}

// The answer's shape is defined once (./audit-views.ts, which the audit page imports): this fails to compile on drift.
const _answer = (v: AsJson<Awaited<ReturnType<typeof searchAudit>>>): AuditResponse => v;

/** The chain, and the log against the latest checkpoint of the witness outside the database (lib/audit/anchor.ts). */
export async function verifyAudit() {
  return verifyAuditWithWitness();
}

/** The signed head (count, last seq and hash) for operators to keep outside the database. */
export async function auditCheckpoint() {
  return exportAuditCheckpoint();
}

export const AUDIT_EXPORT_MAX_ROWS = 10_000;
const CSV_COLUMNS = [
  "seq",
  "at",
  "action",
  "actorEmail",
  "actorId",
  "sessionId",
  "toolName",
  "callId",
  "decision",
  "layer",
  "rule",
  "details",
] as const;

/**
 * RFC 4180 quoting, written here rather than taken from a CSV library because the product's own rule comes with it:
 * a cell that a spreadsheet would read as a formula (= + - @, tab, CR) is prefixed with an apostrophe, since audit
 * details contain text that users and models wrote.
 */
function csvCell(value: unknown): string {
  let text = value === null || value === undefined ? "" : typeof value === "string" ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** Every row matching the filters (up to the cap) as CSV or JSON; the export itself is audited. */
export async function exportAudit({ query, actorId }: { query: z.output<typeof AuditExportQuery>; actorId: string }) {
  const { format, ...filters } = query;
  const rows: Awaited<ReturnType<typeof searchAudit>>["entries"] = [];
  let cursor: number | undefined;
  do {
    const page = await searchAudit({ ...filters, cursor, limit: 200 });
    rows.push(...page.entries);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && rows.length < AUDIT_EXPORT_MAX_ROWS);
  const entries = rows.slice(0, AUDIT_EXPORT_MAX_ROWS);
  const truncated = rows.length > AUDIT_EXPORT_MAX_ROWS || cursor !== undefined;
  await appendAudit({
    action: "audit.exported",
    actorId,
    details: { format, rows: entries.length, truncated, filters },
  });
  const body =
    format === "json"
      ? JSON.stringify({ exportedAt: new Date().toISOString(), filters, truncated, entries }, null, 2)
      : `${[CSV_COLUMNS.join(","), ...entries.map((e) => CSV_COLUMNS.map((c) => csvCell(e[c])).join(","))].join("\r\n")}\r\n`;
  return { body, format, truncated, rows: entries.length };
}
