import "server-only";
// What the inbox and the API show of an approval: the full arguments or command, the analysis, why it is
// needed, who asked, and how it ended.
import { AppError } from "@/lib/errors";
import { findApproval, listApprovals, type ApprovalStatus } from "@/lib/db/approvals";
import { listContextBeforeCall } from "@/lib/db/messages";
import { findUserEmails } from "@/lib/db/users";
import { findClientSessionNames } from "@/lib/db/sessions";
import type { CurrentUser } from "@/lib/auth/guards";
import type { RiskCue } from "@/lib/exec/risk";
import { previewAllowAlways, type AllowAlwaysPreview } from "./grants";
import { riskCues } from "./risk-view";

type Row = NonNullable<Awaited<ReturnType<typeof findApproval>>>;

function view(a: Row, emails: Map<string, string>, allowAlways?: AllowAlwaysPreview, risks: RiskCue[] = [], clients: Map<string, string> = new Map()) {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status,
    decision: a.decision,
    sessionId: a.sessionId,
    requester: { id: a.requesterId, email: emails.get(a.requesterId) ?? null },
    /** An outside MCP client's call: the client's name (its token's name); null for a chat's call. */
    client: clients.get(a.sessionId) ?? null,
    toolName: a.toolName,
    callId: a.callId,
    args: a.args,
    argsHash: a.argsHash,
    command: a.command,
    analysis: a.analysis,
    /** Toolgate's words: why this call needs an owner. */
    reason: a.reason,
    /** The requester's words (POST /api/approvals), unchecked: the inbox shows them apart, marked as theirs. */
    requesterNote: a.requesterNote,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    resolvedAt: a.resolvedAt,
    resolvedBy: a.resolvedById ? { id: a.resolvedById, email: emails.get(a.resolvedById) ?? null } : null,
    resolveReason: a.resolveReason,
    consumed: a.consumedAt !== null,
    /** Pending only: exactly what "allow always" would store, and the scopes it may be given. */
    allowAlways: allowAlways ?? null,
    /** Labelled hints for the reader (destructive, network, outside the workspace, first use): lib/exec/risk.ts. */
    risks,
  };
}

export type ApprovalDetail = ReturnType<typeof view>;

export async function listApprovalViews({ status, limit }: { status?: ApprovalStatus; limit?: number }): Promise<ApprovalDetail[]> {
  const rows = await listApprovals({ status, limit });
  const emails = await findUserEmails({ userIds: rows.flatMap((r) => [r.requesterId, r.resolvedById ?? ""]).filter(Boolean) });
  const [previews, risks, clients] = await Promise.all([
    Promise.all(rows.map((r) => (r.status === "pending" ? previewAllowAlways(r) : undefined))),
    riskCues(rows),
    findClientSessionNames({ sessionIds: rows.map((r) => r.sessionId) }),
  ]);
  return rows.map((r, i) => shortened(view(r, emails, previews[i], risks.get(r.id), clients)));
}

/** In a list, long arguments and commands are cut (the inbox loads one approval whole when it is opened). */
const LIST_TEXT_LIMIT = 2_000;

function shortened(v: ApprovalDetail): ApprovalDetail & { truncated?: true } {
  const args = JSON.stringify(v.args ?? null);
  const long = args.length > LIST_TEXT_LIMIT || (v.command?.length ?? 0) > LIST_TEXT_LIMIT;
  if (!long) return v;
  return {
    ...v,
    args: args.length > LIST_TEXT_LIMIT ? `${args.slice(0, LIST_TEXT_LIMIT)}… (${args.length} characters; open the approval for all of it)` : v.args,
    command: v.command && v.command.length > LIST_TEXT_LIMIT ? `${v.command.slice(0, LIST_TEXT_LIMIT)}…` : v.command,
    truncated: true,
  };
}

const CONTEXT_MESSAGES = 6;
const CONTEXT_CHARS = 2_000;

/**
 * Owners see every approval, with the conversation that led to it (the last few user and assistant lines, so a
 * command is judged in its context); the requester sees their own; everyone else gets 404 (no leak).
 */
export async function getApprovalView({ user, approvalId }: { user: CurrentUser; approvalId: string }): Promise<ApprovalDetail & { context?: Array<{ role: string; content: string; createdAt: Date }> }> {
  const row = await findApproval({ id: approvalId });
  const isOwner = user.roles.includes("owner");
  if (!row || (!isOwner && row.requesterId !== user.id)) throw new AppError("NOT_FOUND", "no such approval");
  const emails = await findUserEmails({ userIds: [row.requesterId, row.resolvedById ?? ""].filter(Boolean) });
  const risks = (await riskCues([row])).get(row.id);
  const clients = await findClientSessionNames({ sessionIds: [row.sessionId] });
  if (!isOwner) return view(row, emails, undefined, risks, clients);
  const context = await listContextBeforeCall({ sessionId: row.sessionId, toolCallId: row.callId, limit: CONTEXT_MESSAGES });
  const allowAlways = row.status === "pending" ? await previewAllowAlways(row) : undefined;
  return { ...view(row, emails, allowAlways, risks, clients), context: context.filter((m) => m.content.trim() !== "").map((m) => ({ role: m.role, content: m.content.slice(0, CONTEXT_CHARS), createdAt: m.createdAt })) };
}
