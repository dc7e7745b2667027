import "server-only";
// What the inbox and the API show of an approval: the full arguments or command, the analysis, why it is
// needed, who asked, and how it ended.
import { AppError } from "@/lib/errors";
import {
  STOPPED_REASON,
  WITHDRAWN_REASON,
  countApprovals,
  findApproval,
  listApprovalPage,
  type ApprovalFilter,
} from "@/lib/db/approvals";
import { listContextBeforeCall } from "@/lib/db/messages";
import { findUserEmails, findUserNames } from "@/lib/db/users";
import { findClientSessionNames, findSessionTitles } from "@/lib/db/sessions";
import type { CurrentUser } from "@/lib/auth/guards";
import type { RiskCue } from "@/lib/exec/risk";
import { previewAllowAlways, type AllowAlwaysPreview } from "./grants";
import { riskCues } from "./risk-view";
import { routedDeciders } from "./routing";
import type { AsJson } from "@/lib/as-json";
import type { ApprovalDetailView, ApprovalView } from "./approval-view";

type Row = NonNullable<Awaited<ReturnType<typeof findApproval>>>;

/** What a record shows instead of ids: people's e-mails and names, chat titles, outside clients' names. */
type Labels = {
  emails: Map<string, string>;
  names: Map<string, string | null>;
  titles: Map<string, string>;
  clients: Map<string, string>;
};

async function loadLabels(rows: Row[]): Promise<Labels> {
  const userIds = rows.flatMap((r) => [r.requesterId, r.resolvedById ?? ""]).filter(Boolean);
  const sessionIds = rows.map((r) => r.sessionId);
  const [emails, names, titles, clients] = await Promise.all([
    findUserEmails({ userIds }),
    findUserNames({ userIds }),
    findSessionTitles({ sessionIds }),
    findClientSessionNames({ sessionIds }),
  ]);
  return { emails, names, titles, clients };
}

function view(
  a: Row,
  { emails, names, titles, clients }: Labels,
  allowAlways?: AllowAlwaysPreview,
  risks: RiskCue[] = [],
) {
  return {
    id: a.id,
    kind: a.kind,
    status: a.status as ApprovalView["status"],
    decision: a.decision,
    sessionId: a.sessionId,
    /** The chat the request came from, by its title. */
    sessionTitle: titles.get(a.sessionId) ?? null,
    requester: { id: a.requesterId, email: emails.get(a.requesterId) ?? null, name: names.get(a.requesterId) ?? null },
    /** An outside MCP client's call: the client's name (its token's name); null for a chat's call. */
    client: clients.get(a.sessionId) ?? null,
    toolName: a.toolName,
    callId: a.callId,
    args: a.args,
    argsHash: a.argsHash,
    command: a.command,
    analysis: a.analysis as ApprovalView["analysis"],
    /** Toolgate's words: why this call needs an owner. */
    reason: a.reason,
    /** The requester's words (POST /api/approvals), unchecked: the inbox shows them apart, marked as theirs. */
    requesterNote: a.requesterNote,
    createdAt: a.createdAt,
    expiresAt: a.expiresAt,
    resolvedAt: a.resolvedAt,
    resolvedBy: a.resolvedById
      ? { id: a.resolvedById, email: emails.get(a.resolvedById) ?? null, name: names.get(a.resolvedById) ?? null }
      : null,
    resolveReason: a.resolveReason,
    /** How it ended, in words: a request whose requester stopped the run was withdrawn, not left to expire. */
    outcome: outcomeOf(a),
    consumed: a.consumedAt !== null,
    /** Pending only: exactly what "allow always" would store, and the scopes it may be given. */
    allowAlways: allowAlways ?? null,
    /** Labelled hints for the reader (destructive, network, outside the workspace, first use): lib/exec/risk.ts. */
    risks,
    /** Routing (issue 31): the rule that routed it, who may decide it now, and allows given towards its quorum. */
    routing: a.routeRule
      ? {
          rule: a.routeRule,
          deciderIds: routedDeciders(a) ?? [],
          quorum: { given: a.allowCount, needed: a.quorum },
          escalated: a.escalatedAt !== null,
        }
      : null,
  };
}

function outcomeOf(
  a: Row,
): "pending" | "allowed once" | "allowed always" | "denied" | "expired" | "withdrawn by the requester" {
  if (a.status === "expired")
    return a.resolveReason === WITHDRAWN_REASON || a.resolveReason === STOPPED_REASON
      ? "withdrawn by the requester"
      : "expired";
  if (a.status === "approved") return a.decision === "allow-always" ? "allowed always" : "allowed once";
  if (a.status === "denied") return "denied";
  return "pending";
}

export type ApprovalDetail = ReturnType<typeof view>;

// The wire shape is defined once (./approval-view.ts, which the inbox imports): these fail to compile when what
// this file builds drifts from it.
const _listed = (v: AsJson<ReturnType<typeof shortened>>): ApprovalView => v;
const _opened = (v: AsJson<Awaited<ReturnType<typeof getApprovalView>>>): ApprovalDetailView => v;

/** Past this many matches the list says "1000+": counting further would cost as much as the list is meant not to. */
export const LIST_TOTAL_CAP = 1_000;

/** One page of the inbox: the views, the cursor of the next page (null at the end), and how many match (capped). */
export async function listApprovalViews({
  cursor,
  limit = 100,
  ...filter
}: ApprovalFilter & { cursor?: string; limit?: number }) {
  const [{ rows, nextCursor }, count] = await Promise.all([
    listApprovalPage({ filter, cursor, limit }),
    countApprovals({ filter, cap: LIST_TOTAL_CAP }),
  ]);
  const [labels, previews, risks] = await Promise.all([
    loadLabels(rows),
    Promise.all(rows.map((r) => (r.status === "pending" ? previewAllowAlways(r) : undefined))),
    riskCues(rows),
  ]);
  return {
    approvals: rows.map((r, i) => shortened(view(r, labels, previews[i], risks.get(r.id)))),
    nextCursor,
    total: Math.min(count, LIST_TOTAL_CAP),
    totalCapped: count > LIST_TOTAL_CAP,
  };
}

/** In a list, long arguments and commands are cut (the inbox loads one approval whole when it is opened). */
const LIST_TEXT_LIMIT = 2_000;

function shortened(v: ApprovalDetail): ApprovalDetail & { truncated?: true } {
  const args = JSON.stringify(v.args ?? null);
  const long = args.length > LIST_TEXT_LIMIT || (v.command?.length ?? 0) > LIST_TEXT_LIMIT;
  if (!long) return v;
  return {
    ...v,
    args:
      args.length > LIST_TEXT_LIMIT
        ? `${args.slice(0, LIST_TEXT_LIMIT)}… (${args.length} characters; open the approval for all of it)`
        : v.args,
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
export async function getApprovalView({
  user,
  approvalId,
}: {
  user: CurrentUser;
  approvalId: string;
}): Promise<ApprovalDetail & { context?: Array<{ role: string; content: string; createdAt: Date }> }> {
  const row = await findApproval({ id: approvalId });
  const isOwner = user.roles.includes("owner");
  if (!row || (!isOwner && row.requesterId !== user.id)) throw new AppError("NOT_FOUND", "no such approval");
  const labels = await loadLabels([row]);
  const risks = (await riskCues([row])).get(row.id);
  if (!isOwner) return view(row, labels, undefined, risks);
  const context = await listContextBeforeCall({
    sessionId: row.sessionId,
    toolCallId: row.callId,
    limit: CONTEXT_MESSAGES,
  });
  const allowAlways = row.status === "pending" ? await previewAllowAlways(row) : undefined;
  return {
    ...view(row, labels, allowAlways, risks),
    context: context
      .filter((m) => m.content.trim() !== "")
      .map((m) => ({ role: m.role, content: m.content.slice(0, CONTEXT_CHARS), createdAt: m.createdAt })),
  };
}
