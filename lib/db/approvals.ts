import "server-only";
// Approvals live in the database, not in one process's memory: registration is idempotent per
// (session, call id), resolution and expiry are conditional updates (exactly one writer wins, across
// instances), and allow-once consumption is another conditional update (a replay finds it consumed).
import { Prisma } from "@/lib/generated/sqlite/client";
import { getDb, type Tx } from "./client";
import { containsText } from "./text-match";

export type ApprovalStatus = "pending" | "approved" | "denied" | "expired";
export type ApprovalDecision = "allow-once" | "allow-always" | "deny";

export type NewApproval = {
  /** domain: an unlisted domain a sandboxed command tried (lib/approvals/domains.ts). */
  kind: "exec" | "tool" | "domain";
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
  /** Routing (issue 31): set when a routing rule matched; absent, any owner decides. */
  routing?: {
    rule: string;
    approverIds: string[];
    escalateToIds: string[];
    escalateAt: Date | null;
    quorum: number;
  } | null;
  /** The request's own risk cues, stored form (lib/exec/risk-kinds.ts encodeRiskKinds): the inbox filters by them. */
  riskKinds?: string;
};

/** The reason an approval expires with when its requester stopped the run: the inbox reads it as "withdrawn". */
export const WITHDRAWN_REASON = "withdrawn by the requester";
/** Stop while a turn waits ends its requests with this reason; the inbox reads both as withdrawn by the requester. */
export const STOPPED_REASON = "the requester stopped the run";

export type ApprovalRow = Awaited<ReturnType<typeof findApproval>> & {};

export async function findApproval({ id, tx }: { id: string; tx?: Tx }) {
  return (tx ?? getDb()).approval.findUnique({ where: { id } });
}

export async function findApprovalByCall({ sessionId, callId, tx }: { sessionId: string; callId: string; tx?: Tx }) {
  return (tx ?? getDb()).approval.findUnique({ where: { sessionId_callId: { sessionId, callId } } });
}

/** Registers a pending approval, or returns the existing one for the same session and call id. */
export async function registerApproval(
  input: NewApproval,
  tx?: Tx,
): Promise<{ approval: NonNullable<ApprovalRow>; created: boolean }> {
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
        riskKinds: input.riskKinds ?? null,
        ...(input.routing
          ? {
              routeRule: input.routing.rule,
              approverIds: input.routing.approverIds,
              escalateToIds: input.routing.escalateToIds,
              escalateAt: input.routing.escalateAt,
              quorum: input.routing.quorum,
            }
          : {}),
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
export type ApprovalResolution = {
  status: "approved" | "denied";
  decision: ApprovalDecision;
  resolvedAt: Date;
  resolvedById: string;
  resolveReason: string | null;
  resolvedVia: string;
};

/**
 * Exactly-once: only a pending, unexpired approval is resolved; a second resolve returns null. The winner gets
 * what it wrote: nothing else in the row changes while it is pending, so the row read before is current with it.
 */
export async function resolveApprovalRow({
  id,
  decision,
  resolvedById,
  reason,
  via = "inbox",
  now = new Date(),
  tx,
}: {
  id: string;
  /** The channel the decision came from (inbox, email, slack). */
  via?: string;
  decision: ApprovalDecision;
  resolvedById: string;
  reason?: string | null;
  now?: Date;
  tx?: Tx;
}): Promise<ApprovalResolution | null> {
  const resolution = {
    status: decision === "deny" ? ("denied" as const) : ("approved" as const),
    decision,
    resolvedAt: now,
    resolvedById,
    resolveReason: reason ?? null,
    resolvedVia: via,
  };
  const result = await (tx ?? getDb()).approval.updateMany({
    where: { id, status: "pending", expiresAt: { gt: now } },
    data: resolution,
  });
  return result.count === 1 ? resolution : null;
}

/** allow-once is consumed by exactly one execution. */
export async function consumeApproval({ id, tx }: { id: string; tx?: Tx }): Promise<boolean> {
  const consumed = await (tx ?? getDb()).approval.updateMany({
    where: { id, status: "approved", consumedAt: null },
    data: { consumedAt: new Date() },
  });
  return consumed.count === 1;
}

export type ApprovalFilter = {
  /** "decided" is every status but pending. */
  status?: ApprovalStatus | "decided";
  requesterId?: string;
  /** The requester's e-mail, exactly (e-mails are stored lower-case). */
  requesterEmail?: string;
  toolName?: string;
  kind?: "exec" | "tool";
  /** The agent of the chat the request came from. */
  agentId?: string;
  /** Requests by members of this team. */
  teamId?: string;
  /** Text in the tool name, command, arguments, requester's note, requester's e-mail or name, or chat title. */
  q?: string;
  /**
   * Requests carrying any of these risk cues (stored kinds, lowercase letters and "-"). A row not assessed yet
   * (riskKinds null: from before the column, until the backfill reaches it) matches too: a filter for risky
   * requests never hides one it cannot tell about.
   */
  riskKinds?: string[];
};

function filterSql(f: ApprovalFilter): Prisma.Sql[] {
  const where: Prisma.Sql[] = [];
  if (f.status === "decided") where.push(Prisma.sql`a."status" IN ('approved', 'denied', 'expired')`);
  else if (f.status) where.push(Prisma.sql`a."status" = ${f.status}`);
  if (f.requesterId) where.push(Prisma.sql`a."requesterId" = ${f.requesterId}`);
  if (f.requesterEmail)
    where.push(
      Prisma.sql`a."requesterId" IN (SELECT u."id" FROM "User" u WHERE u."email" = ${f.requesterEmail.toLowerCase()})`,
    );
  if (f.toolName) where.push(Prisma.sql`a."toolName" = ${f.toolName}`);
  if (f.kind) where.push(Prisma.sql`a."kind" = ${f.kind}`);
  if (f.agentId)
    where.push(Prisma.sql`a."sessionId" IN (SELECT s."id" FROM "ChatSession" s WHERE s."agentId" = ${f.agentId})`);
  if (f.teamId)
    where.push(Prisma.sql`a."requesterId" IN (SELECT t."userId" FROM "TeamMember" t WHERE t."teamId" = ${f.teamId})`);
  if (f.riskKinds?.length) {
    const kinds = f.riskKinds.map((k) => Prisma.sql`a."riskKinds" LIKE ${`%,${k},%`}`);
    where.push(Prisma.sql`(a."riskKinds" IS NULL OR ${Prisma.join(kinds, " OR ")})`);
  }
  if (f.q) {
    const q = f.q;
    where.push(
      Prisma.sql`(${Prisma.join(
        [
          containsText(Prisma.sql`a."toolName"`, q),
          containsText(Prisma.sql`a."command"`, q),
          containsText(Prisma.sql`a."args"`, q),
          containsText(Prisma.sql`a."requesterNote"`, q),
          Prisma.sql`a."requesterId" IN (SELECT u."id" FROM "User" u WHERE ${containsText(Prisma.sql`u."email"`, q)} OR ${containsText(Prisma.sql`u."name"`, q)})`,
          Prisma.sql`a."sessionId" IN (SELECT s."id" FROM "ChatSession" s WHERE ${containsText(Prisma.sql`s."title"`, q)})`,
        ],
        " OR ",
      )})`,
    );
  }
  return where;
}

const whereClause = (conds: Prisma.Sql[]) =>
  conds.length ? Prisma.sql`WHERE ${Prisma.join(conds, " AND ")}` : Prisma.empty;

/**
 * One page of approvals, newest first, after the cursor (the id of the last row of the page before). The cursor
 * is a keyset, (createdAt, id) of that row, read by the database itself: a page costs one index range whatever
 * its depth, and rows arriving meanwhile neither repeat nor skip one. An unknown cursor gives an empty page.
 */
export async function listApprovalPage({
  filter,
  cursor,
  limit,
}: {
  filter: ApprovalFilter;
  cursor?: string;
  limit: number;
}) {
  const conds = filterSql(filter);
  if (cursor)
    conds.push(
      Prisma.sql`(a."createdAt", a."id") < (SELECT c."createdAt", c."id" FROM "Approval" c WHERE c."id" = ${cursor})`,
    );
  const ids = await getDb().$queryRaw<
    Array<{ id: string }>
  >`SELECT a."id" FROM "Approval" a ${whereClause(conds)} ORDER BY a."createdAt" DESC, a."id" DESC LIMIT ${limit + 1}`;
  const pageIds = ids.slice(0, limit).map((r) => r.id);
  const rows = pageIds.length ? await getDb().approval.findMany({ where: { id: { in: pageIds } } }) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    rows: pageIds.flatMap((id) => byId.get(id) ?? []),
    nextCursor: ids.length > limit ? (pageIds.at(-1) ?? null) : null,
  };
}

/** How many approvals match, counted up to `cap` (past it the answer is cap + 1: "more than cap"), at a bounded cost. */
export async function countApprovals({ filter, cap }: { filter: ApprovalFilter; cap: number }): Promise<number> {
  const rows = await getDb().$queryRaw<
    Array<{ n: number | bigint }>
  >`SELECT COUNT(*) AS "n" FROM (SELECT 1 FROM "Approval" a ${whereClause(filterSql(filter))} LIMIT ${cap + 1}) t`;
  return Number(rows[0]?.n ?? 0);
}

/**
 * A denial applied to the call made again (issue 31): marked once, so the same call made once more asks anew.
 * Only a denied approval: an allowed one is consumed by its execution (consumeApproval).
 */
export async function markDenialApplied({ id, tx }: { id: string; tx?: Tx }): Promise<boolean> {
  const marked = await (tx ?? getDb()).approval.updateMany({
    where: { id, status: "denied", consumedAt: null },
    data: { consumedAt: new Date() },
  });
  return marked.count === 1;
}

export async function listRunApprovals({ runId }: { runId: string }) {
  return getDb().approval.findMany({ where: { runId }, orderBy: { createdAt: "asc" } });
}

/** Due approvals (pending past their expiry), for the sweeper to expire one by one. */
export async function listDueApprovals({ now = new Date() }: { now?: Date } = {}) {
  return getDb().approval.findMany({ where: { status: "pending", expiresAt: { lte: now } }, select: { id: true } });
}

/** Expires one approval in the caller's transaction; false when it was no longer pending. */
export async function expireApprovalRow({
  tx,
  id,
  now = new Date(),
  reason = null,
}: {
  tx: Tx;
  id: string;
  now?: Date;
  reason?: string | null;
}): Promise<boolean> {
  const r = await tx.approval.updateMany({
    where: { id, status: "pending" },
    data: { status: "expired", resolvedAt: now, resolveReason: reason },
  });
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
  const rows = await getDb().approval.findMany({
    where: { id: { in: [...new Set(ids)] }, resolveReason: { not: null } },
    select: { id: true, resolveReason: true },
  });
  return new Map(rows.map((r) => [r.id, r.resolveReason!]));
}

/**
 * Counts one more allow towards a quorum. The conditional update takes the approval row's lock, so concurrent
 * voters on one request run one after another (on PostgreSQL too): each sees the count the one before it left.
 * Null when the request is no longer pending.
 */
export async function countAllowVote({
  tx,
  id,
  now = new Date(),
}: {
  tx: Tx;
  id: string;
  now?: Date;
}): Promise<number | null> {
  const r = await tx.approval.updateMany({
    where: { id, status: "pending", expiresAt: { gt: now } },
    data: { allowCount: { increment: 1 } },
  });
  if (r.count !== 1) return null;
  return (await tx.approval.findUniqueOrThrow({ where: { id }, select: { allowCount: true } })).allowCount;
}

export async function findApprovalVote({ tx, approvalId, userId }: { tx?: Tx; approvalId: string; userId: string }) {
  return (tx ?? getDb()).approvalVote.findUnique({ where: { approvalId_userId: { approvalId, userId } } });
}

export async function insertApprovalVote({
  tx,
  approvalId,
  userId,
  decision,
  via,
}: {
  tx: Tx;
  approvalId: string;
  userId: string;
  decision: string;
  via: string;
}) {
  await tx.approvalVote.create({ data: { approvalId, userId, decision, via } });
}

/** Pending requests whose escalation is due and not yet announced. */
export async function listDueEscalations({ now = new Date() }: { now?: Date } = {}) {
  return getDb().approval.findMany({
    where: { status: "pending", escalatedAt: null, escalateAt: { lte: now }, expiresAt: { gt: now } },
    select: { id: true },
  });
}

/** Marks an escalation announced; exactly one instance wins it. */
export async function markEscalated({
  tx,
  id,
  now = new Date(),
}: {
  tx: Tx;
  id: string;
  now?: Date;
}): Promise<boolean> {
  const r = await tx.approval.updateMany({
    where: { id, status: "pending", escalatedAt: null },
    data: { escalatedAt: now },
  });
  return r.count === 1;
}

/** What a routing rule matches on: the requester's teams and the session's agent (read in the caller's transaction). */
export async function findRoutingSubject({
  tx,
  requesterId,
  sessionId,
}: {
  tx: Tx;
  requesterId: string;
  sessionId: string;
}) {
  const [teams, session] = await Promise.all([
    tx.teamMember.findMany({ where: { userId: requesterId }, select: { teamId: true } }),
    tx.chatSession.findUnique({ where: { id: sessionId }, select: { agentId: true } }),
  ]);
  return { teamIds: teams.map((t) => t.teamId), agentId: session?.agentId ?? null };
}

/** A member's pending request for one domain pattern, if any: a command trying it again asks no second time. */
export async function findPendingDomainApproval({ requesterId, pattern }: { requesterId: string; pattern: string }) {
  return getDb().approval.findFirst({
    where: { requesterId, kind: "domain", command: pattern, status: "pending" },
    orderBy: { createdAt: "asc" },
  });
}

/**
 * Claims a member's approved, unused allow-once domain approvals for one command: each row is taken by exactly
 * one command (the conditional consume), so two commands started together never both use the same "once".
 */
export async function claimAllowOnceDomains({ requesterId }: { requesterId: string }): Promise<string[]> {
  const rows = await getDb().approval.findMany({
    where: { requesterId, kind: "domain", status: "approved", decision: "allow-once", consumedAt: null },
    select: { id: true, command: true },
    take: 50,
  });
  const claimed: string[] = [];
  for (const row of rows) if (row.command && (await consumeApproval({ id: row.id }))) claimed.push(row.command);
  return claimed;
}

/** Rows not yet assessed for risk (from before Approval.riskKinds), oldest first, a batch at a time. */
export async function listUnassessedApprovals({ limit }: { limit: number }) {
  return getDb().approval.findMany({
    where: { riskKinds: null },
    orderBy: { id: "asc" },
    take: limit,
    select: { id: true, kind: true, toolName: true, args: true, command: true, analysis: true },
  });
}

/** Stores assessed risk kinds: one update per distinct value, each only where still unassessed. */
export async function storeRiskKinds({ byKinds }: { byKinds: Map<string, string[]> }): Promise<number> {
  let n = 0;
  for (const [riskKinds, ids] of byKinds) {
    const where = { id: { in: ids }, riskKinds: null };
    n += (await getDb().approval.updateMany({ where, data: { riskKinds } })).count;
  }
  return n;
}
