import "server-only";
// Signed-in browsers ("devices", issue 32). One row per sign-in; the session token carries its id. A row is never
// deleted by the app: revoking sets revokedAt, and lib/auth/guards.ts refuses a token whose row is revoked or gone.
import { getDb } from "./client";

export type AuthSessionRow = {
  id: string;
  userId: string;
  createdAt: Date;
  lastSeenAt: Date;
  userAgent: string | null;
  ip: string | null;
  revokedAt: Date | null;
};

const listed = {
  id: true,
  userId: true,
  createdAt: true,
  lastSeenAt: true,
  userAgent: true,
  ip: true,
  revokedAt: true,
} as const;

export async function createAuthSession({
  userId,
  userAgent,
  ip,
}: {
  userId: string;
  userAgent: string | null;
  ip: string | null;
}): Promise<AuthSessionRow> {
  return getDb().authSession.create({ data: { userId, userAgent, ip }, select: listed });
}

/** The user's live sessions, most recently seen first. Another user's never appear (the user id is the caller's). */
export async function listLiveAuthSessions({
  userId,
  limit = 100,
}: {
  userId: string;
  limit?: number;
}): Promise<AuthSessionRow[]> {
  return getDb().authSession.findMany({
    where: { userId, revokedAt: null },
    orderBy: [{ lastSeenAt: "desc" }, { createdAt: "desc" }],
    take: limit,
    select: listed,
  });
}

/** Revokes one of the user's live sessions; false when the user has no such live session (another user's id included). */
export async function revokeAuthSessionOfUser({
  userId,
  sessionId,
  at = new Date(),
}: {
  userId: string;
  sessionId: string;
  at?: Date;
}): Promise<boolean> {
  const { count } = await getDb().authSession.updateMany({
    where: { id: sessionId, userId, revokedAt: null },
    data: { revokedAt: at },
  });
  return count === 1;
}

/** Revokes every live session of the user except `keepId`; the number revoked. */
export async function revokeOtherAuthSessions({
  userId,
  keepId,
  at = new Date(),
}: {
  userId: string;
  keepId: string;
  at?: Date;
}): Promise<number> {
  const { count } = await getDb().authSession.updateMany({
    where: { userId, revokedAt: null, id: { not: keepId } },
    data: { revokedAt: at },
  });
  return count;
}

/**
 * Moves lastSeenAt forward only when it is older than `staleBefore`: concurrent requests of one session (or of
 * several app instances) write at most once per interval, the others match no row.
 */
export async function touchAuthSession({
  sessionId,
  now,
  staleBefore,
}: {
  sessionId: string;
  now: Date;
  staleBefore: Date;
}): Promise<void> {
  await getDb().authSession.updateMany({
    where: { id: sessionId, revokedAt: null, lastSeenAt: { lt: staleBefore } },
    data: { lastSeenAt: now },
  });
}
