import "server-only";
// Routing (issue 31): which owners a new request goes to, fixed when it is registered (a later policy edit does
// not move a request already waiting), and checked on every decision, whatever the channel (inbox, e-mail link,
// Slack). Approvers are named by e-mail in the policy and resolved to active owners here; a rule whose approvers
// are none of them leaves a request nobody may decide (it expires): fail closed, never "any owner" instead.
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import type { Tx } from "@/lib/db/client";
import { findRoutingSubject, type NewApproval } from "@/lib/db/approvals";
import { listActiveOwnersByEmails } from "@/lib/db/users";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { assessRisk } from "@/lib/exec/risk";
import { loadShellParser } from "@/lib/exec/shell-parser";
import { matchRoutingRule, routingPlan, type ShellAnalysis } from "@/lib/policy";

export type RoutedRequest = { routing: NonNullable<NewApproval["routing"]>; ttlMs: number | null } | null;

function asAnalysis(value: unknown): ShellAnalysis | null {
  if (typeof value !== "object" || value === null || !Array.isArray((value as { segments?: unknown }).segments))
    return null;
  return value as ShellAnalysis;
}

export async function routeRequestInTx(
  tx: Tx,
  request: {
    requesterId: string;
    sessionId: string;
    toolName: string;
    args: unknown;
    command?: string | null;
    analysis?: unknown;
  },
  now: Date,
): Promise<RoutedRequest> {
  // Everything here reads through tx: twelve requests at once must not each hold a connection and wait for another.
  const { document } = await loadPolicyDocument({ tx });
  if (document.routing.rules.length === 0) return null;
  const subject = await findRoutingSubject({ tx, requesterId: request.requesterId, sessionId: request.sessionId });
  const needsRisk = document.routing.rules.some((r) => r.match.risks);
  if (needsRisk) await loadShellParser();
  // The requester's history is not read here (first use): without it no first-use cue is given, never a wrong one.
  const riskKinds = needsRisk
    ? assessRisk({
        toolName: request.toolName,
        args: request.args,
        command: request.command,
        analysis: asAnalysis(request.analysis),
        knownExecutables: null,
      }).map((c) => c.kind)
    : [];
  const rule = matchRoutingRule(document.routing, { ...subject, toolName: request.toolName, riskKinds });
  if (!rule) return null;
  const plan = routingPlan(rule, now);
  const owners = await listActiveOwnersByEmails({ tx, emails: [...plan.approvers, ...plan.escalateTo] });
  const idOf = new Map(owners.map((o) => [o.email, o.id]));
  const ids = (emails: string[]) => [...new Set(emails.flatMap((e) => idOf.get(e) ?? []))];
  const approverIds = ids(plan.approvers);
  if (approverIds.length === 0) log("warn", "approval_routing_no_approver", { rule: rule.id });
  return {
    routing: {
      rule: rule.id,
      approverIds,
      escalateToIds: ids(plan.escalateTo),
      escalateAt: plan.escalateAt,
      quorum: plan.quorum,
    },
    ttlMs: plan.ttlMs,
  };
}

type Routed = { routeRule: string | null; approverIds: unknown; escalateToIds: unknown; escalateAt: Date | null };

const idList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** Who may decide a routed request now: its rule's approvers, and its escalation target once escalation is due. */
export function routedDeciders(approval: Routed, now = new Date()): string[] | null {
  if (approval.routeRule === null) return null;
  const escalated = approval.escalateAt !== null && approval.escalateAt <= now;
  return [...idList(approval.approverIds), ...(escalated ? idList(approval.escalateToIds) : [])];
}

/** Only an owner the request's routing rule names decides it (on every channel). */
export function assertRoutedApprover(approval: Routed, deciderId: string, now = new Date()): void {
  const deciders = routedDeciders(approval, now);
  if (deciders && !deciders.includes(deciderId))
    throw new AppError(
      "FORBIDDEN",
      `the routing rule "${approval.routeRule}" does not name you as an approver of this request`,
    );
}
