import "server-only";
// What the inbox and the API show of an approval: the full arguments or command, the analysis, why it is
// needed, who asked, and how it ended.
import { AppError } from "@/lib/errors";
import { findApproval, listApprovals, type ApprovalStatus } from "@/lib/db/approvals";
import { findUserEmails } from "@/lib/db/users";
import type { CurrentUser } from "@/lib/auth/guards";

type Row = NonNullable<Awaited<ReturnType<typeof findApproval>>>;

function view(a: Row, emails: Map<string, string>) {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    decision: a.decision,
    sessionId: a.sessionId,
    requester: { id: a.requesterId, email: emails.get(a.requesterId) ?? null },
    toolName: a.toolName,
    callId: a.callId,
    args: a.args,
    argsHash: a.argsHash,
    command: a.command,
    analysis: a.analysis,
    reason: a.reason,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    resolvedAt: a.resolvedAt,
    resolvedBy: a.resolvedById ? { id: a.resolvedById, email: emails.get(a.resolvedById) ?? null } : null,
    resolveReason: a.resolveReason,
    consumed: a.consumedAt !== null,
  };
}

export type ApprovalDetail = ReturnType<typeof view>;

export async function listApprovalViews({ status, limit }: { status?: ApprovalStatus; limit?: number }): Promise<ApprovalDetail[]> {
  const rows = await listApprovals({ status, limit });
  const emails = await findUserEmails({ userIds: rows.flatMap((r) => [r.requesterId, r.resolvedById ?? ""]).filter(Boolean) });
  return rows.map((r) => view(r, emails));
}

/** Owners see every approval; the requester sees their own; everyone else gets 404 (no leak). */
export async function getApprovalView({ user, approvalId }: { user: CurrentUser; approvalId: string }): Promise<ApprovalDetail> {
  const row = await findApproval({ id: approvalId });
  if (!row || (!user.roles.includes("owner") && row.requesterId !== user.id)) throw new AppError("NOT_FOUND", "no such approval");
  const emails = await findUserEmails({ userIds: [row.requesterId, row.resolvedById ?? ""].filter(Boolean) });
  return view(row, emails);
}
