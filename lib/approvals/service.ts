import "server-only";
// Approvals: risky calls wait for an owner's decision. The request is registered (and audited) before
// anyone is told about it; decisions are exactly-once conditional updates; every request, decision, expiry
// and allowlist change is audited and published as an event.
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { appendAudit } from "@/lib/db/audit";
import { addAllowlistEntry, deleteAllowlistEntry, findAllowlistEntry } from "@/lib/db/allowlist";
import {
  expireDueApprovals,
  findApproval,
  registerApproval,
  resolveApprovalRow,
  type ApprovalDecision,
  type NewApproval,
} from "@/lib/db/approvals";
import { publishEvent, subscribeEvents } from "@/lib/events/bus";
import { allowAlwaysPatterns, hashArguments } from "./rules";

export type ApprovalView = NonNullable<Awaited<ReturnType<typeof findApproval>>>;

function summary(a: ApprovalView) {
  return {
    id: a.id,
    kind: a.kind,
    sessionId: a.sessionId,
    requesterId: a.requesterId,
    toolName: a.toolName,
    callId: a.callId,
    command: a.command,
    status: a.status,
    decision: a.decision,
    reason: a.reason,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    resolvedAt: a.resolvedAt,
    resolvedById: a.resolvedById,
  };
}

export async function requestApproval(input: Omit<NewApproval, "argsHash" | "expiresAt"> & { ttlMs?: number }) {
  const ttlMs = input.ttlMs ?? loadConfig().APPROVAL_TTL_SECONDS * 1000;
  const { approval, created } = await registerApproval({
    ...input,
    argsHash: hashArguments(input.toolName, input.args),
    expiresAt: new Date(Date.now() + ttlMs),
  });
  if (created) {
    await appendAudit({
      action: "approval.requested",
      actorId: input.requesterId,
      sessionId: input.sessionId,
      toolName: input.toolName,
      callId: input.callId,
      decision: "ask",
      details: { approvalId: approval.id, reason: input.reason, command: input.command ?? null },
    });
    await publishEvent({ type: "approval.requested", scope: "approvals", sessionId: input.sessionId, payload: summary(approval) });
  }
  return { approval, created };
}

export type DecisionOutcome = { approval: ApprovalView; allowlisted: string[]; refused: string[] };

/** Resolves a pending approval; throws CONFLICT when it was already decided or has expired. */
export async function decideApproval({ approvalId, ownerId, decision, reason }: { approvalId: string; ownerId: string; decision: ApprovalDecision; reason?: string }): Promise<DecisionOutcome> {
  const before = await findApproval({ id: approvalId });
  if (!before) throw new AppError("NOT_FOUND", "no such approval");
  const won = await resolveApprovalRow({ id: approvalId, decision, resolvedById: ownerId, reason });
  if (!won) {
    const now = await findApproval({ id: approvalId });
    throw new AppError("CONFLICT", `this approval is already ${now?.status === "pending" ? "expired" : now?.status ?? "gone"}`, { status: now?.status });
  }
  const approval = (await findApproval({ id: approvalId }))!;
  await appendAudit({
    action: "approval.resolved",
    actorId: ownerId,
    sessionId: approval.sessionId,
    toolName: approval.toolName,
    callId: approval.callId,
    decision,
    details: { approvalId, reason: reason ?? null },
  });
  const allowlisted: string[] = [];
  const refused: string[] = [];
  if (decision === "allow-always") {
    const additions = approval.kind === "exec" ? allowAlwaysPatterns(approval.command ?? "") : { patterns: [approval.toolName], refused: [] };
    refused.push(...additions.refused);
    for (const pattern of additions.patterns) {
      const { entry, created } = await addAllowlistEntry({ kind: approval.kind === "exec" ? "exec" : "tool", pattern, createdById: ownerId, approvalId });
      allowlisted.push(pattern);
      if (created) await appendAudit({ action: "allowlist.added", actorId: ownerId, toolName: approval.toolName, details: { entryId: entry.id, kind: entry.kind, pattern } });
    }
  }
  await publishEvent({ type: "approval.resolved", scope: "approvals", sessionId: approval.sessionId, payload: { ...summary(approval), allowlisted, refused } });
  return { approval, allowlisted, refused };
}

/** Marks due approvals expired (audited, published); returns them so their runs can resume. */
export async function sweepExpiredApprovals(): Promise<ApprovalView[]> {
  const expired = await expireDueApprovals();
  for (const approval of expired) {
    await appendAudit({ action: "approval.expired", sessionId: approval.sessionId, toolName: approval.toolName, callId: approval.callId, decision: "expired", details: { approvalId: approval.id } });
    await publishEvent({ type: "approval.expired", scope: "approvals", sessionId: approval.sessionId, payload: summary(approval) });
  }
  return expired;
}

/** Long-poll: the decision if there is one (also after it was made), null when the wait times out. */
export async function waitForDecision({ approvalId, timeoutMs }: { approvalId: string; timeoutMs: number }) {
  const check = async () => {
    const a = await findApproval({ id: approvalId });
    if (!a) throw new AppError("NOT_FOUND", "no such approval");
    if (a.status === "pending" && a.expiresAt > new Date()) return null;
    // Past its expiry but not swept yet: it can no longer be decided, so it is expired already.
    return { status: a.status === "pending" ? "expired" : a.status, decision: a.decision, resolvedAt: a.resolvedAt };
  };
  const first = await check();
  if (first) return first;
  return new Promise<Awaited<ReturnType<typeof check>>>((resolve, reject) => {
    let unsubscribe: (() => void) | null = null;
    let settled = false;
    const finish = (value: Awaited<ReturnType<typeof check>>, error?: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      unsubscribe?.();
      if (error) reject(error);
      else resolve(value);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    subscribeEvents((event) => {
      const payload = event.payload as { id?: string };
      if (payload?.id === approvalId) check().then((v) => v && finish(v), (e) => finish(null, e));
    }).then((u) => {
      unsubscribe = u;
      if (settled) u();
      // A decision between the first check and the subscription would otherwise be missed.
      else check().then((v) => v && finish(v), (e) => finish(null, e));
    }, (e) => finish(null, e));
  });
}

export async function revokeAllowlistEntry({ id, actorId }: { id: string; actorId: string }) {
  const entry = await findAllowlistEntry({ id });
  if (!entry || !(await deleteAllowlistEntry({ id }))) throw new AppError("NOT_FOUND", "no such allowlist entry");
  await appendAudit({ action: "allowlist.revoked", actorId, details: { entryId: id, kind: entry.kind, pattern: entry.pattern } });
  log("info", "allowlist_revoked", { id, pattern: entry.pattern });
  return entry;
}
