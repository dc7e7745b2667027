import "server-only";
// Personal access tokens (issue 30). Rows hold a hash of the secret, never the secret.
import { ROLES, type Role } from "@/lib/policy/types";
import { getDb } from "./client";

export type AccessTokenRow = {
  id: string;
  userId: string;
  name: string;
  prefix: string;
  agentId: string | null;
  mode: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

const listed = {
  id: true,
  userId: true,
  name: true,
  prefix: true,
  agentId: true,
  mode: true,
  createdAt: true,
  expiresAt: true,
  lastUsedAt: true,
  revokedAt: true,
} as const;

export async function insertAccessToken(data: {
  userId: string;
  name: string;
  tokenHash: string;
  prefix: string;
  agentId: string | null;
  mode: string;
  expiresAt: Date | null;
}): Promise<AccessTokenRow> {
  return getDb().accessToken.create({ data, select: listed });
}

export async function countLiveAccessTokens({ userId, now }: { userId: string; now: Date }): Promise<number> {
  return getDb().accessToken.count({
    where: { userId, revokedAt: null, OR: [{ expiresAt: null }, { expiresAt: { gt: now } }] },
  });
}

/** A user's tokens, or everyone's (userId undefined, for an admin), newest first, with the owner's e-mail. */
export async function listAccessTokens({
  userId,
}: {
  userId?: string;
}): Promise<Array<AccessTokenRow & { userEmail: string }>> {
  const rows = await getDb().accessToken.findMany({
    where: userId ? { userId } : {},
    orderBy: { createdAt: "desc" },
    take: 500,
    select: { ...listed, user: { select: { email: true } } },
  });
  return rows.map(({ user, ...row }) => ({ ...row, userEmail: user.email }));
}

export async function findAccessToken({ id }: { id: string }): Promise<AccessTokenRow | null> {
  return getDb().accessToken.findUnique({ where: { id }, select: listed });
}

/** What decides whether a token still holds: read while a call made with it waits. */
export async function findAccessTokenState({ id }: { id: string }) {
  return getDb().accessToken.findUnique({
    where: { id },
    select: { revokedAt: true, expiresAt: true, user: { select: { disabledAt: true } } },
  });
}

/** Revokes one token if it is still live; false when it was already revoked (or does not exist). */
export async function revokeAccessToken({ id, at = new Date() }: { id: string; at?: Date }): Promise<boolean> {
  const { count } = await getDb().accessToken.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
  return count === 1;
}

/** The token with its user's state, by the secret's hash: one read on every MCP request. */
export async function findAccessTokenByHash({ tokenHash }: { tokenHash: string }) {
  const row = await getDb().accessToken.findUnique({
    where: { tokenHash },
    select: {
      ...listed,
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
  });
  if (!row) return null;
  const { user, ...token } = row;
  const roles = user.roles.map((r) => r.role).filter((r): r is Role => (ROLES as readonly string[]).includes(r));
  return {
    token,
    user: { id: user.id, email: user.email, name: user.name, roles, teamIds: user.teams.map((t) => t.teamId) },
    userDisabled: user.disabledAt !== null,
  };
}

export async function touchAccessToken({ id, at }: { id: string; at: Date }): Promise<void> {
  await getDb().accessToken.updateMany({ where: { id }, data: { lastUsedAt: at } });
}

export async function findAccessTokensByIds({ ids }: { ids: string[] }): Promise<AccessTokenRow[]> {
  if (ids.length === 0) return [];
  return getDb().accessToken.findMany({ where: { id: { in: ids } }, select: listed });
}
