import "server-only";
// Allow-always grants: what an owner's "allow always" stores, shown before it is stored. For exec it is the exact
// argv of each part of the command, or a prefix the owner picked ("git status *"), never a command runner; for
// other tools the tool name. A grant belongs to the requester unless the owner widens it to one of the
// requester's teams, the session's agent, or everyone; it may expire. Storing, using and revoking are audited.
import { AppError } from "@/lib/errors";
import { appendAudit, type AuditEntry } from "@/lib/db/audit";
import type { Tx } from "@/lib/db/client";
import { createGrant, deleteGrant, findGrant, listGrants } from "@/lib/db/allowlist";
import { GRANT_SCOPES, type GrantChoice, type GrantScope, type GrantView } from "./grant-choice";
import { findSessionById } from "@/lib/db/sessions";
import { findUserEmails, getUserWithRoles } from "@/lib/db/users";
import { formatRule, proposeGrant } from "@/lib/exec/rules";
import { loadShellParser } from "@/lib/exec/shell-parser";

type ApprovalLike = {
  id: string;
  kind: string;
  toolName: string;
  command: string | null;
  requesterId: string;
  sessionId: string;
};

export type AllowAlwaysPreview = {
  rules: string[];
  refused: string[];
  scopes: GrantScope[];
  teams: string[];
  agentId: string | null;
};

async function requesterContext(approval: ApprovalLike) {
  const [requester, session] = await Promise.all([
    getUserWithRoles({ userId: approval.requesterId }),
    findSessionById({ sessionId: approval.sessionId }),
  ]);
  return { teamIds: requester?.teamIds ?? [], agentId: session?.agentId ?? null };
}

async function rulesFor(approval: ApprovalLike, prefixWords?: number) {
  // A domain approval's grant is the domain pattern its card named (its command), nothing wider.
  if (approval.kind !== "exec")
    return {
      rules: [{ pattern: approval.kind === "domain" ? (approval.command ?? "") : approval.toolName }],
      refused: [] as string[],
    };
  await loadShellParser();
  const proposal = proposeGrant({ command: approval.command ?? "", prefixWords });
  return {
    rules: proposal.rules.map((r) => ({ pattern: formatRule(r), words: r.words, prefix: r.prefix })),
    refused: proposal.refused,
  };
}

/** Exactly what "allow always" would store and for whom it could be stored, before the owner confirms. */
export async function previewAllowAlways(approval: ApprovalLike, prefixWords?: number): Promise<AllowAlwaysPreview> {
  const [{ rules, refused }, ctx] = await Promise.all([rulesFor(approval, prefixWords), requesterContext(approval)]);
  const scopes: GrantScope[] = [
    "user",
    ...(ctx.teamIds.length > 0 ? (["team"] as const) : []),
    ...(ctx.agentId ? (["agent"] as const) : []),
    "everyone",
  ];
  return { rules: rules.map((r) => r.pattern), refused, scopes, teams: ctx.teamIds, agentId: ctx.agentId };
}

function scopeIdFor(
  choice: GrantChoice,
  approval: ApprovalLike,
  ctx: { teamIds: string[]; agentId: string | null },
): string {
  switch (choice.scope) {
    case "user":
      return approval.requesterId;
    case "everyone":
      return "";
    case "agent":
      if (!ctx.agentId) throw new AppError("VALIDATION_FAILED", "this session has no agent; choose another scope");
      return ctx.agentId;
    case "team": {
      const teamId = choice.teamId ?? (ctx.teamIds.length === 1 ? ctx.teamIds[0] : undefined);
      if (!teamId || !ctx.teamIds.includes(teamId))
        throw new AppError("VALIDATION_FAILED", "name one of the requester's teams (teamId)", { teams: ctx.teamIds });
      return teamId;
    }
  }
}

export type PreparedGrants = Awaited<ReturnType<typeof prepareGrants>>;

/**
 * Everything "allow always" will store, worked out (and the owner's scope validated) before the decision's
 * transaction, so a bad scope never half-decides an approval and the transaction only writes.
 */
export async function prepareGrants(approval: ApprovalLike, choice: GrantChoice) {
  if (choice.prefixWords !== undefined && approval.kind !== "exec")
    throw new AppError("VALIDATION_FAILED", "prefixWords applies to exec commands only");
  const scopeId = scopeIdFor(choice, approval, await requesterContext(approval));
  const { rules, refused } = await rulesFor(approval, choice.prefixWords);
  // Sorted: grants lock their keys in this order, so two decisions storing the same rules cannot deadlock.
  rules.sort((a, b) => (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0));
  const expiresAt = choice.expiresInHours ? new Date(Date.now() + choice.expiresInHours * 3_600_000) : null;
  return { scope: choice.scope, scopeId, rules, refused, expiresAt };
}

/**
 * Stores prepared grants inside the decision's transaction (the decision and what it grants commit together)
 * and returns the audit rows for the caller to write last, after its own (the audit lock is taken last).
 */
export async function storeGrantsInTx(
  tx: Tx,
  { approval, ownerId, prepared }: { approval: ApprovalLike; ownerId: string; prepared: PreparedGrants },
) {
  const allowlisted: string[] = [];
  const audit: AuditEntry[] = [];
  for (const rule of prepared.rules) {
    const { entry, created } = await createGrant(
      {
        kind: approval.kind === "exec" || approval.kind === "domain" ? approval.kind : "tool",
        pattern: rule.pattern,
        words: "words" in rule ? rule.words : undefined,
        prefix: "prefix" in rule ? rule.prefix : false,
        scope: prepared.scope,
        scopeId: prepared.scopeId,
        createdById: ownerId,
        approvalId: approval.id,
        reason: `allow always on approval ${approval.id}`,
        expiresAt: prepared.expiresAt,
      },
      tx,
    );
    allowlisted.push(rule.pattern);
    if (created) {
      audit.push({
        action: "grant.created",
        actorId: ownerId,
        sessionId: approval.sessionId,
        toolName: approval.toolName,
        details: {
          grantId: entry.id,
          kind: entry.kind,
          rule: entry.pattern,
          scope: entry.scope,
          scopeId: entry.scopeId,
          expiresAt: prepared.expiresAt?.toISOString() ?? null,
          approvalId: approval.id,
        },
      });
    }
  }
  return { allowlisted, refused: prepared.refused, audit };
}

export async function listGrantViews(): Promise<GrantView[]> {
  const now = Date.now();
  const grants = await listGrants();
  const emails = await findUserEmails({ userIds: grants.filter((g) => g.scope === "user").map((g) => g.scopeId) });
  return grants.map((g) => ({
    id: g.id,
    kind: g.kind === "tool" || g.kind === "domain" ? g.kind : "exec",
    rule: g.pattern,
    scope: (GRANT_SCOPES as readonly string[]).includes(g.scope) ? (g.scope as GrantScope) : "user",
    scopeId: g.scopeId || null,
    scopeLabel: g.scope === "user" ? (emails.get(g.scopeId) ?? null) : null,
    createdBy: g.createdByEmail,
    createdAt: g.createdAt,
    expiresAt: g.expiresAt,
    expired: g.expiresAt !== null && g.expiresAt.getTime() <= now,
    useCount: g.useCount,
    lastUsedAt: g.lastUsedAt,
    reason: g.reason,
  }));
}

export async function revokeGrant({ id, actorId }: { id: string; actorId: string }) {
  const grant = await findGrant({ id });
  if (!grant || !(await deleteGrant({ id }))) throw new AppError("NOT_FOUND", "no such grant");
  await appendAudit({
    action: "grant.revoked",
    actorId,
    details: { grantId: id, kind: grant.kind, rule: grant.pattern, scope: grant.scope, scopeId: grant.scopeId },
  });
  return grant;
}
