import "server-only";
// Approvals live in the database, not in one process's memory: registration is idempotent per
// (session, call id), resolution and expiry are conditional updates (exactly one writer wins, across
// instances), and allow-once consumption is another conditional update (a replay finds it consumed).
import { getDb } from "./client";

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
  reason: string;
  expiresAt: Date;
};

export type ApprovalRow = Awaited<ReturnType<typeof findApproval>> & {};

export async function findApproval({ id }: { id: string }) {
  return getDb().approval.findUnique({ where: { id } });
}

export async function findApprovalByCall({ sessionId, callId }: { sessionId: string; callId: string }) {
  return getDb().approval.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

/** Registers a pending approval, or returns the existing one for the same session and call id. */
export async function registerApproval(input: NewApproval): Promise<{ approval: NonNullable<ApprovalRow>; created: boolean }> {
  const db = getDb();
  const existing = await findApprovalByCall({ sessionId: input.sessionId, callId: input.callId });
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
        expiresAt: input.expiresAt,
      },
    });
    return { approval, created: true };
  } catch (error) {
    // A concurrent registration of the same call won the unique key: return that one.
    if ((error as { code?: string }).code === "P2002") {
      const again = await findApprovalByCall({ sessionId: input.sessionId, callId: input.callId });
      if (again) return { approval: again, created: false };
    }
    throw error;
  }
}

/** Exactly-once: only a pending, unexpired approval is resolved; a second resolve returns false. */
export async function resolveApprovalRow({ id, decision, resolvedById, reason, now = new Date() }: {
  id: string;
  decision: ApprovalDecision;
  resolvedById: string;
  reason?: string | null;
  now?: Date;
}): Promise<boolean> {
  const result = await getDb().approval.updateMany({
    where: { id, status: "pending", expiresAt: { gt: now } },
    data: { status: decision === "deny" ? "denied" : "approved", decision, resolvedAt: now, resolvedById, resolveReason: reason ?? null },
  });
  return result.count === 1;
}

/** Marks every pending approval past its expiry as expired; returns the ones this call expired. */
export async function expireDueApprovals({ now = new Date() }: { now?: Date } = {}) {
  const db = getDb();
  const due = await db.approval.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true } });
  const expired = [];
  for (const { id } of due) {
    const r = await db.approval.updateMany({ where: { id, status: "pending" }, data: { status: "expired", resolvedAt: now } });
    if (r.count === 1) expired.push((await findApproval({ id }))!);
  }
  return expired;
}

/** allow-once is consumed by exactly one execution. */
export async function consumeApproval({ id }: { id: string }): Promise<boolean> {
  const r = await getDb().approval.updateMany({ where: { id, status: "approved", consumedAt: null }, data: { consumedAt: new Date() } });
  return r.count === 1;
}

export async function listApprovals({ status, limit = 100 }: { status?: ApprovalStatus; limit?: number }) {
  return getDb().approval.findMany({ where: status ? { status } : undefined, orderBy: { createdAt: "desc" }, take: limit });
}

export async function listRunApprovals({ runId }: { runId: string }) {
  return getDb().approval.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
}
