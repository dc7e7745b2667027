import "server-only";
// Allow-always grants (model AllowlistEntry): exec rules and tool names, each scoped to a user, a team, an agent
// or everyone, optionally expiring. Lookups always filter by the requester's scopes and the current time, so a
// grant never reaches anyone it was not given to, nor outlives its expiry.
import { getDb, isPostgres, type Tx } from "./client";

/** domain: a domain pattern a sandboxed command may reach (`host` for ports 80/443, else `host:port`). */
export type GrantKind = "exec" | "tool" | "domain";
export type GrantScope = "user" | "team" | "agent" | "everyone";

export type NewGrant = {
  kind: GrantKind;
  pattern: string;
  words?: string[];
  prefix?: boolean;
  scope: GrantScope;
  scopeId: string;
  createdById: string | null;
  approvalId?: string;
  reason?: string | null;
  expiresAt?: Date | null;
};

/**
 * Idempotent: the same rule for the same scope is stored once (a repeated allow-always returns the existing row).
 * Inside a transaction (`tx`, the approval decision that stores it) a unique-key race cannot be caught and
 * retried (PostgreSQL aborts the transaction), so identical grants are serialised by an advisory lock on their
 * key first; SQLite has one writer at a time anyway.
 */
export async function createGrant(grant: NewGrant, tx?: Tx) {
  const db = tx ?? getDb();
  const key = { kind: grant.kind, pattern: grant.pattern, scope: grant.scope, scopeId: grant.scopeId };
  if (tx && isPostgres()) await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${JSON.stringify(key)}))`;
  const existing = await db.allowlistEntry.findUnique({ where: { kind_pattern_scope_scopeId: key } });
  if (existing) return { entry: existing, created: false };
  const data = {
    ...key,
    words: grant.words ?? undefined,
    prefix: grant.prefix ?? false,
    createdById: grant.createdById,
    approvalId: grant.approvalId,
    reason: grant.reason ?? null,
    expiresAt: grant.expiresAt ?? null,
  };
  if (tx) return { entry: await tx.allowlistEntry.create({ data }), created: true };
  try {
    return { entry: await db.allowlistEntry.create({ data }), created: true };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      return {
        entry: (await db.allowlistEntry.findUnique({ where: { kind_pattern_scope_scopeId: key } }))!,
        created: false,
      };
    }
    throw error;
  }
}

/** The grants in force for one requester: theirs, their teams', their agent's and everyone's, not expired. */
export async function listActiveGrants({
  userId,
  teamIds,
  agentId,
  now = new Date(),
}: {
  userId: string;
  teamIds: readonly string[];
  agentId?: string | null;
  now?: Date;
}) {
  const scopes = [
    { scope: "user", scopeId: userId },
    { scope: "everyone", scopeId: "" },
    ...(teamIds.length > 0 ? [{ scope: "team", scopeId: { in: [...teamIds] } }] : []),
    ...(agentId ? [{ scope: "agent", scopeId: agentId }] : []),
  ];
  return getDb().allowlistEntry.findMany({
    where: { AND: [{ OR: scopes }, { OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] }] },
    orderBy: { createdAt: "asc" },
  });
}

/** Every grant (owners' page), newest first, with who created it. */
export async function listGrants({ kind }: { kind?: GrantKind } = {}) {
  const db = getDb();
  const entries = await db.allowlistEntry.findMany({
    where: kind ? { kind } : undefined,
    orderBy: { createdAt: "desc" },
    take: 1000,
  });
  const creatorIds = [...new Set(entries.map((e) => e.createdById).filter((id): id is string => id !== null))];
  const creators =
    creatorIds.length > 0
      ? await db.user.findMany({ where: { id: { in: creatorIds } }, select: { id: true, email: true } })
      : [];
  const emailOf = new Map(creators.map((u) => [u.id, u.email]));
  return entries.map((e) => ({ ...e, createdByEmail: e.createdById ? (emailOf.get(e.createdById) ?? null) : null }));
}

export async function recordGrantUse({ ids, at = new Date() }: { ids: readonly string[]; at?: Date }) {
  if (ids.length === 0) return;
  await getDb().allowlistEntry.updateMany({
    where: { id: { in: [...ids] } },
    data: { useCount: { increment: 1 }, lastUsedAt: at },
  });
}

export async function deleteGrant({ id }: { id: string }) {
  const r = await getDb().allowlistEntry.deleteMany({ where: { id } });
  return r.count === 1;
}

export async function findGrant({ id }: { id: string }) {
  return getDb().allowlistEntry.findUnique({ where: { id } });
}
