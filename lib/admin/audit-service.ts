import "server-only";
// The audit log for admins: filtered, cursor-paginated on the server, and the chain check.
import { exportAuditCheckpoint, listAuditEntries, verifyAuditChain } from "@/lib/db/audit";
import { findUserByEmail, listUsersByIds } from "@/lib/db/users";
import type { z } from "zod";
import type { AuditQuery } from "./schemas";

export async function searchAudit(query: z.output<typeof AuditQuery>) {
  // "user" takes an e-mail or a user id: admins know people by e-mail.
  let actorId = query.user;
  if (actorId?.includes("@")) actorId = (await findUserByEmail({ email: actorId }))?.id ?? `unknown-user:${actorId}`;
  const { entries, nextCursor } = await listAuditEntries({
    filter: { actorId, sessionId: query.session, toolName: query.tool, decision: query.decision, layer: query.layer, action: query.action, from: query.from, to: query.to },
    cursor: query.cursor,
    limit: query.limit,
  });
  const emails = new Map((await listUsersByIds({ ids: [...new Set(entries.flatMap((e) => (e.actorId ? [e.actorId] : [])))] })).map((u) => [u.id, u.email]));
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

export async function verifyAudit() {
  return verifyAuditChain();
}

/** The signed head (count, last seq and hash) for operators to keep outside the database. */
export async function auditCheckpoint() {
  return exportAuditCheckpoint();
}
