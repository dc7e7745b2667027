import "server-only";
// Approvals live in the database, not in one process's memory: registration is idempotent per
// (session, call id), resolution and expiry are conditional updates (exactly one writer wins, across
// instances), and allow-once consumption is another conditional update (a replay finds it consumed).
import { getDb, type Tx } from "./client";

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";
export type ApprovalDecision = "allow-once" | "allow-always" | "deny";

export type NewApproval = {
  kind: "exec" | "tool";
  sessionId: string;
  runId?: string | null;
  requesterId: string;
  toolName: string;
  callId: string;
  argsHash: string;
  args: unknown;
  command?: string | null;
  analysis?: unknown;
  /** Why Toolgate asks, in Toolgate's words. */
  reason: string;
  /** The requester's own words, if they gave any: shown as their note, never as the reason. */
  requesterNote?: string | null;
  expiresAt: Date;
};

export type ApprovalRow = Awaited<ReturnType<typeof findApproval>> & {};

export async function findApproval({ id, tx }: { id: string; tx?: Tx }) {
  return (tx ?? getDb()).approval.findUnique({ where: { id } });
}

export async function findApprovalByCall({ sessionId, callId, tx }: { sessionId: string; callId: string; tx?: Tx }) {
  return (tx ?? getDb()).approval.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

/** Registers a pending approval, or returns the existing one for the same session and call id. */
export async function registerApproval(input: NewApproval, tx?: Tx): Promise<{ approval: NonNullable<ApprovalRow>; created: boolean }> {
  const db = tx ?? getDb();
  const existing = await findApprovalByCall({ sessionId: input.sessionId, callId: input.callId, tx });
  if (existing) return { approval: existing, created: false };
  try {
    const approval = await db.approval.create({
      data: {
        kind: input.kind,
        sessionId: input.sessionId,
        runId: input.runId ?? null,
        requesterId: input.requesterId,
        toolName: input.toolName,
        callId: input.callId,
        argsHash: input.argsHash,
        args: input.args as never,
        command: input.command ?? null,
        analysis: (input.analysis ?? undefined) as never,
        reason: input.reason,
        requesterNote: input.requesterNote ?? null,
        expiresAt: input.expiresAt,
      },
    });
    return { approval, created: true };
  } catch (error) {
    // A concurrent registration of the same call won the unique key: return that one. (Inside a transaction
    // the caller has registered the call id first, so no concurrent registration can reach this point.)
    if (!tx && (error as { code?: string }).code === "P2002") {
      const again = await findApprovalByCall({ sessionId: input.sessionId, callId: input.callId });
      if (again) return { approval: again, created: false };
    }
    throw error;
  }
}

/** What a decision writes into its approval row. */
export type ApprovalResolution = { status: "approved" | "denied"; decision: ApprovalDecision; resolvedAt: Date; resolvedById: string; resolveReason: string | null; resolvedVia: string };

/**
 * Exactly-once: only a pending, unexpired approval is resolved; a second resolve returns null. The winner gets
 * what it wrote: nothing else in the row changes while it is pending, so the row read before is current with it.
 */
export async function resolveApprovalRow({ id, decision, resolvedById, reason, via = "inbox", now = new Date(), tx }: {
  id: string;
  /** The channel the decision came from (inbox, email, slack). */
  via?: string;
  decision: ApprovalDecision;
  resolvedById: string;
  reason?: string | null;
  now?: Date;
  tx?: Tx;
}): Promise<ApprovalResolution | null> {
  const resolution = { status: decision === "deny" ? ("denied" as const) : ("approved" as const), decision, resolvedAt: now, resolvedById, resolveReason: reason ?? null, resolvedVia: via };
  const result = await (tx ?? getDb()).approval.updateMany({ where: { id, status: "pending", expiresAt: { gt: now } }, data: resolution });
  return result.count === 1 ? resolution : null;
}

/** allow-once is consumed by exactly one execution. */
export async function consumeApproval({ id, tx }: { id: string; tx?: Tx }): Promise<boolean> {
  const consumed = await (tx ?? getDb()).approval.updateMany({ where: { id, status: "approved", consumedAt: null }, data: { consumedAt: new Date() } });
  return consumed.count === 1;
}

export async function listApprovals({ status, limit = 100 }: { status?: ApprovalStatus; limit?: number }) {
  return getDb().approval.findMany({ where: status ? { status } : undefined, orderBy: { createdAt: "desc" }, take: limit });
}

export async function listRunApprovals({ runId }: { runId: string }) {
  return getDb().approval.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
}

/** Due approvals (pending past their expiry), for the sweeper to expire one by one. */
export async function listDueApprovals({ now = new Date() }: { now?: Date } = {}) {
  return getDb().approval.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true } });
}

/** Expires one approval in the caller's transaction; false when it was no longer pending. */
export async function expireApprovalRow({ tx, id, now = new Date(), reason = null }: { tx: Tx; id: string; now?: Date; reason?: string | null }): Promise<boolean> {
  const r = await tx.approval.updateMany({ where: { id, status: "pending" }, data: { status: "expired", resolvedAt: now, resolveReason: reason } });
  return r.count === 1;
}

export async function listPendingRunApprovals({ runId, tx }: { runId: string; tx?: Tx }) {
  return (tx ?? getDb()).approval.findMany({ where: { runId, status: "pending" } });
}

/** The command analyses of a requester's approved exec requests, newest first (for the first-use risk cue). */
export async function listApprovedExecAnalyses({ requesterId, limit = 500 }: { requesterId: string; limit?: number }) {
  return getDb().approval.findMany({
    where: { requesterId, kind: "exec", status: "approved" },
    orderBy: { createdAt: "desc" },
    take: limit,
    select: { id: true, createdAt: true, command: true, analysis: true },
  });
}

/** The owners' stated reasons of decided approvals, by id (the member's chat card shows them). */
export async function listApprovalReasons({ ids }: { ids: string[] }): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const rows = await getDb().approval.findMany({ where: { id: { in: [...new Set(ids)] }, resolveReason: { not: null } }, select: { id: true, resolveReason: true } });
  return new Map(rows.map((r) => [r.id, r.resolveReason!]));
}
