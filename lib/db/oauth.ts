import "server-only";
// OAuth 2.1 storage for the MCP gateway (issue 30): clients, grants (a user's consent), codes and tokens. Secrets
// are stored only as SHA-256 hashes. Every check that must not race (a code used once, a refresh token rotated
// once) is one conditional update whose count decides the winner.
import { ROLES, type Role } from "@/lib/policy/types";
import { getDb } from "./client";

export type OAuthClientRow = {
  id: string;
  clientId: string;
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
  createdAt: Date;
};

function toClient(row: {
  id: string;
  clientId: string;
  name: string;
  redirectUris: unknown;
  metadata: unknown;
  createdAt: Date;
}): OAuthClientRow {
  const uris = Array.isArray(row.redirectUris)
    ? row.redirectUris.filter((u): u is string => typeof u === "string")
    : [];
  const metadata =
    typeof row.metadata === "object" && row.metadata !== null ? (row.metadata as Record<string, unknown>) : {};
  return { ...row, redirectUris: uris, metadata };
}

export async function insertOAuthClient(data: {
  clientId: string;
  name: string;
  redirectUris: string[];
  metadata: Record<string, unknown>;
}): Promise<OAuthClientRow> {
  return toClient(await getDb().oAuthClient.create({ data: { ...data, metadata: data.metadata as object } }));
}

export async function countOAuthClientsSince({ since }: { since: Date }): Promise<number> {
  return getDb().oAuthClient.count({ where: { createdAt: { gte: since } } });
}

/** The oldest registration inside the window, so a 429 can say when the ceiling frees a place. */
export async function findOldestOAuthClientSince({ since }: { since: Date }): Promise<Date | null> {
  const row = await getDb().oAuthClient.findFirst({
    where: { createdAt: { gte: since } },
    orderBy: { createdAt: "asc" },
    select: { createdAt: true },
  });
  return row?.createdAt ?? null;
}

export async function findOAuthClient({ clientId }: { clientId: string }): Promise<OAuthClientRow | null> {
  const row = await getDb().oAuthClient.findUnique({ where: { clientId } });
  return row ? toClient(row) : null;
}

/** A user's consent and its authorization code, written together: a code never exists without its grant. */
export async function insertOAuthGrantWithCode(data: {
  userId: string;
  clientDbId: string;
  resource: string;
  mode: string;
  agentId: string | null;
  code: { codeHash: string; redirectUri: string; codeChallenge: string; expiresAt: Date };
}): Promise<{ grantId: string }> {
  const grant = await getDb().oAuthGrant.create({
    data: {
      userId: data.userId,
      clientId: data.clientDbId,
      resource: data.resource,
      mode: data.mode,
      agentId: data.agentId,
      codes: { create: data.code },
    },
    select: { id: true },
  });
  return { grantId: grant.id };
}

const grantSelect = {
  id: true,
  userId: true,
  resource: true,
  mode: true,
  agentId: true,
  revokedAt: true,
  client: { select: { clientId: true, name: true } },
} as const;

/**
 * Marks the code used if it was not (one winner among racing exchanges). `reused` when it had been used before:
 * the caller revokes the grant, since a second use means the code leaked.
 */
export async function consumeOAuthCode({ codeHash, now }: { codeHash: string; now: Date }) {
  const db = getDb();
  const code = await db.oAuthCode.findUnique({
    where: { codeHash },
    select: { id: true, redirectUri: true, codeChallenge: true, expiresAt: true, grant: { select: grantSelect } },
  });
  if (!code) return null;
  const { count } = await db.oAuthCode.updateMany({ where: { id: code.id, usedAt: null }, data: { usedAt: now } });
  return { ...code, reused: count === 0 };
}

export type NewOAuthToken = { tokenHash: string; kind: "access" | "refresh"; expiresAt: Date };

export async function insertOAuthTokens({
  grantId,
  tokens,
}: {
  grantId: string;
  tokens: NewOAuthToken[];
}): Promise<void> {
  await getDb().oAuthToken.createMany({ data: tokens.map((t) => ({ ...t, grantId })) });
}

/**
 * Rotates a refresh token: marks it used and adds the new pair in one transaction. `reused` when the token had
 * already been used or revoked (the caller revokes the grant); null when there is no such refresh token.
 */
export async function rotateOAuthRefreshToken({
  tokenHash,
  clientId,
  now,
  next,
}: {
  tokenHash: string;
  clientId: string;
  now: Date;
  next: (grantId: string) => NewOAuthToken[];
}) {
  return getDb().$transaction(async (tx) => {
    const token = await tx.oAuthToken.findUnique({
      where: { tokenHash },
      select: { id: true, kind: true, expiresAt: true, grant: { select: grantSelect } },
    });
    if (!token || token.kind !== "refresh") return null;
    // Another client's token is left as it is: presenting it proves nothing about its real holder.
    if (token.grant.client.clientId !== clientId)
      return { grant: token.grant, expiresAt: token.expiresAt, reused: false, wrongClient: true };
    const { count } = await tx.oAuthToken.updateMany({
      where: { id: token.id, usedAt: null, revokedAt: null },
      data: { usedAt: now },
    });
    if (count === 1 && token.expiresAt > now && !token.grant.revokedAt) {
      await tx.oAuthToken.createMany({ data: next(token.grant.id).map((t) => ({ ...t, grantId: token.grant.id })) });
    }
    return { grant: token.grant, expiresAt: token.expiresAt, reused: count === 0, wrongClient: false };
  });
}

/** The access token with its grant and its user's current state: one read on every MCP request. */
export async function findOAuthAccessToken({ tokenHash }: { tokenHash: string }) {
  const row = await getDb().oAuthToken.findUnique({
    where: { tokenHash },
    select: {
      id: true,
      kind: true,
      expiresAt: true,
      revokedAt: true,
      grant: {
        select: {
          ...grantSelect,
          user: {
            select: {
              id: true,
              email: true,
              name: true,
              disabledAt: true,
              roles: { select: { role: true } },
              teams: { select: { teamId: true } },
            },
          },
        },
      },
    },
  });
  if (!row || row.kind !== "access") return null;
  const { user, ...grant } = row.grant;
  const roles = user.roles.map((r) => r.role).filter((r): r is Role => (ROLES as readonly string[]).includes(r));
  return {
    token: { id: row.id, expiresAt: row.expiresAt, revokedAt: row.revokedAt },
    grant,
    user: { id: user.id, email: user.email, name: user.name, roles, teamIds: user.teams.map((t) => t.teamId) },
    userDisabled: user.disabledAt !== null,
  };
}

/** Whether the token, its grant and its user still stand (a waiting call re-reads this). */
export async function findOAuthTokenState({ tokenId }: { tokenId: string }) {
  return getDb().oAuthToken.findUnique({
    where: { id: tokenId },
    select: {
      expiresAt: true,
      revokedAt: true,
      grant: { select: { revokedAt: true, user: { select: { disabledAt: true } } } },
    },
  });
}

/** Revokes a grant and, with it, every token issued under it. */
export async function revokeOAuthGrant({ grantId, at }: { grantId: string; at: Date }): Promise<void> {
  await getDb().$transaction([
    getDb().oAuthGrant.updateMany({ where: { id: grantId, revokedAt: null }, data: { revokedAt: at } }),
    getDb().oAuthToken.updateMany({ where: { grantId, revokedAt: null }, data: { revokedAt: at } }),
  ]);
}

/** The token's grant, by a token's hash (for the revocation endpoint), if the token belongs to the client. */
export async function findOAuthTokenGrant({ tokenHash }: { tokenHash: string }) {
  return getDb().oAuthToken.findUnique({
    where: { tokenHash },
    select: { id: true, kind: true, grant: { select: { id: true, client: { select: { clientId: true } } } } },
  });
}

export async function revokeOAuthTokenById({ id, at }: { id: string; at: Date }): Promise<void> {
  await getDb().oAuthToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
}

/**
 * Removes what can no longer be used: codes and tokens past their expiry (or long used/revoked), then grants that
 * were revoked and have nothing left. Returns the rows removed per kind.
 */
export async function pruneOAuth({ now, keepRevokedMs }: { now: Date; keepRevokedMs: number }) {
  const db = getDb();
  const before = new Date(now.getTime() - keepRevokedMs);
  const codes = await db.oAuthCode.deleteMany({
    where: { OR: [{ expiresAt: { lt: now } }, { usedAt: { lt: before } }] },
  });
  const tokens = await db.oAuthToken.deleteMany({
    where: { OR: [{ expiresAt: { lt: now } }, { revokedAt: { lt: before } }, { usedAt: { lt: before } }] },
  });
  const grants = await db.oAuthGrant.deleteMany({
    where: { revokedAt: { lt: before }, tokens: { none: {} }, codes: { none: {} } },
  });
  return { codes: codes.count, tokens: tokens.count, grants: grants.count };
}

/** Grants with their client's id and name (the admin's view of connected clients). */
export async function findOAuthGrantsByIds({ ids }: { ids: string[] }) {
  if (ids.length === 0) return [];
  return getDb().oAuthGrant.findMany({
    where: { id: { in: ids } },
    select: { id: true, revokedAt: true, client: { select: { clientId: true, name: true } } },
  });
}
