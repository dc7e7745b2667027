import "server-only";
import { ROLES, type Role } from "@/lib/policy/types";
import { getDb, type Tx } from "./client";

export type UserWithRoles = { id: string; email: string; name: string | null; roles: Role[]; teamIds: string[] };

function toRoles(rows: Array<{ role: string }>): Role[] {
  return rows.map((r) => r.role).filter((r): r is Role => (ROLES as readonly string[]).includes(r));
}

export async function findUserByEmail({ email }: { email: string }) {
  return getDb().user.findUnique({ where: { email: email.toLowerCase() } });
}

/** Whether the account with this e-mail holds the role (the sign-in throttle's trusted-network rule). */
export async function userHasRole({ email, role }: { email: string; role: string }): Promise<boolean> {
  return (await getDb().userRole.count({ where: { role, user: { email: email.toLowerCase() } } })) > 0;
}

export type SessionState = {
  user: UserWithRoles;
  sessionVersion: number;
  disabled: boolean;
  /** An admin issued the password in use: nothing but choosing one's own is allowed (lib/auth/guards.ts). */
  passwordMustChange: boolean;
  /** The token's signed-in session (lib/db/auth-sessions.ts), when asked for; null when it is gone. */
  authSession: { revokedAt: Date | null; lastSeenAt: Date } | null;
};

/** The user with the state a session token is checked against (version, deactivation, its signed-in session); one query. */
export async function getUserForSession({
  userId,
  authSessionId,
}: {
  userId: string;
  authSessionId?: string | null;
}): Promise<SessionState | null> {
  const row = await getDb().user.findUnique({
    where: { id: userId },
    include: {
      roles: true,
      teams: { select: { teamId: true } },
      // An id that is not this user's finds nothing: a token cannot borrow another user's session row.
      authSessions: { where: { id: authSessionId ?? "" }, select: { revokedAt: true, lastSeenAt: true }, take: 1 },
    },
  });
  if (!row) return null;
  return {
    user: {
      id: row.id,
      email: row.email,
      name: row.name,
      roles: toRoles(row.roles),
      teamIds: row.teams.map((t) => t.teamId),
    },
    sessionVersion: row.sessionVersion,
    disabled: row.disabledAt !== null,
    passwordMustChange: row.passwordMustChange,
    authSession: row.authSessions[0] ?? null,
  };
}

/** Ends every session token issued so far for this user (sign-out everywhere). */
export async function bumpSessionVersion({ userId }: { userId: string }): Promise<number> {
  const row = await getDb().user.update({
    where: { id: userId },
    data: { sessionVersion: { increment: 1 } },
    select: { sessionVersion: true },
  });
  return row.sessionVersion;
}

/** Every live access token (or OAuth grant, whose tokens end with it) of the user, revoked in the same write as the change that calls for it. */
function revokeAllTokens(at: Date) {
  return { updateMany: { where: { revokedAt: null }, data: { revokedAt: at } } };
}

/**
 * A new password ends all existing sessions (their rows are revoked too, so no device lists them) and revokes every
 * access token in the same write. `mustChange`: an admin issued it, so the user must choose their own next; a
 * password the user chose clears it.
 */
export async function changeUserPassword({
  userId,
  passwordHash,
  mustChange,
}: {
  userId: string;
  passwordHash: string;
  mustChange: boolean;
}) {
  const now = new Date();
  await getDb().user.update({
    where: { id: userId },
    data: {
      passwordHash,
      passwordMustChange: mustChange,
      sessionVersion: { increment: 1 },
      accessTokens: revokeAllTokens(now),
      oauthGrants: revokeAllTokens(now),
      authSessions: revokeAllTokens(now),
    },
  });
}

/**
 * Deactivation (or reactivation) ends all existing sessions; a deactivated user cannot sign in, and their access
 * tokens are revoked (reactivation does not bring them back).
 */
export async function setUserDisabled({ userId, disabled }: { userId: string; disabled: boolean }) {
  const now = new Date();
  await getDb().user.update({
    where: { id: userId },
    data: {
      disabledAt: disabled ? now : null,
      sessionVersion: { increment: 1 },
      authSessions: revokeAllTokens(now),
      ...(disabled ? { accessTokens: revokeAllTokens(now), oauthGrants: revokeAllTokens(now) } : {}),
    },
  });
}

/** Roles and teams read fresh from the database: the source of truth for anything that grants power. */
export async function getUserWithRoles({ userId }: { userId: string }): Promise<UserWithRoles | null> {
  const user = await getDb().user.findUnique({
    where: { id: userId },
    include: { roles: true, teams: { select: { teamId: true } } },
  });
  if (!user) return null;
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    roles: toRoles(user.roles),
    teamIds: user.teams.map((t) => t.teamId),
  };
}

export async function upsertUser({
  email,
  name,
  passwordHash,
  roles,
}: {
  email: string;
  name?: string;
  passwordHash?: string;
  roles: Role[];
}): Promise<{ id: string; created: boolean }> {
  const db = getDb();
  const existing = await db.user.findUnique({ where: { email: email.toLowerCase() } });
  if (existing) return { id: existing.id, created: false };
  const user = await db.user.create({
    data: {
      email: email.toLowerCase(),
      name,
      passwordHash,
      roles: { create: roles.map((role) => ({ role })) },
    },
  });
  return { id: user.id, created: true };
}

export async function setUserRoles({ userId, roles }: { userId: string; roles: Role[] }) {
  const db = getDb();
  await db.$transaction([
    db.userRole.deleteMany({ where: { userId } }),
    db.userRole.createMany({ data: roles.map((role) => ({ userId, role })) }),
    // Roles may have been taken away: sessions issued before end.
    db.user.update({ where: { id: userId }, data: { sessionVersion: { increment: 1 } } }),
  ]);
}

/** Links an OAuth/OIDC identity to the user with the same e-mail, creating a member if there is none. */
export async function linkExternalAccount({
  provider,
  providerAccountId,
  email,
  name,
}: {
  provider: string;
  providerAccountId: string;
  email: string;
  name?: string;
}): Promise<string> {
  const db = getDb();
  const linked = await db.account.findUnique({
    where: { provider_providerAccountId: { provider, providerAccountId } },
  });
  if (linked) return linked.userId;
  const { id } = await upsertUser({ email, name, roles: ["member"] });
  await db.account.create({ data: { userId: id, provider, providerAccountId, type: "oauth" } });
  return id;
}

export async function countUsers(): Promise<number> {
  return getDb().user.count();
}

export async function listUsers() {
  const users = await getDb().user.findMany({
    orderBy: { email: "asc" },
    include: { roles: true, teams: { select: { teamId: true } } },
  });
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    roles: toRoles(u.roles),
    teamIds: u.teams.map((t) => t.teamId),
    active: u.disabledAt === null,
  }));
}

/**
 * A new account with a password; null when the e-mail is taken (checked by the unique key, not a read first).
 * `mustChange`: the password is a one-time one an admin hands over.
 */
export async function createUser({
  email,
  name,
  passwordHash,
  roles,
  mustChange = false,
}: {
  email: string;
  name?: string;
  passwordHash: string;
  roles: Role[];
  mustChange?: boolean;
}): Promise<UserWithRoles | null> {
  try {
    const user = await getDb().user.create({
      data: {
        email: email.toLowerCase(),
        name,
        passwordHash,
        passwordMustChange: mustChange,
        roles: { create: roles.map((role) => ({ role })) },
      },
    });
    return { id: user.id, email: user.email, name: user.name, roles, teamIds: [] };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") return null;
    throw error;
  }
}

/** Users who hold the admin role and are not deactivated, other than `exceptUserId`. */
export async function countActiveAdmins({ exceptUserId }: { exceptUserId: string }): Promise<number> {
  return getDb().user.count({
    where: { id: { not: exceptUserId }, disabledAt: null, roles: { some: { role: "admin" } } },
  });
}

export async function isUserActive({ userId }: { userId: string }): Promise<boolean> {
  const row = await getDb().user.findUnique({ where: { id: userId }, select: { disabledAt: true } });
  return row !== null && row.disabledAt === null;
}

export async function listUsersByIds({ ids }: { ids: string[] }) {
  if (ids.length === 0) return [];
  const users = await getDb().user.findMany({
    where: { id: { in: ids } },
    include: { roles: true, teams: { select: { teamId: true } } },
  });
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    roles: toRoles(u.roles),
    teamIds: u.teams.map((t) => t.teamId),
  }));
}

export async function addUserRole({ userId, role }: { userId: string; role: Role }) {
  await getDb().userRole.upsert({ where: { userId_role: { userId, role } }, create: { userId, role }, update: {} });
}

/** Taking a role away also ends the user's sessions (and their open streams) in the same transaction. */
export async function removeUserRole({ userId, role }: { userId: string; role: Role }) {
  await getDb().$transaction(async (tx) => {
    const { count } = await tx.userRole.deleteMany({ where: { userId, role } });
    if (count > 0) await tx.user.update({ where: { id: userId }, data: { sessionVersion: { increment: 1 } } });
  });
}

export async function findUserEmails({ userIds }: { userIds: string[] }): Promise<Map<string, string>> {
  const users = await getDb().user.findMany({
    where: { id: { in: [...new Set(userIds)] } },
    select: { id: true, email: true },
  });
  return new Map(users.map((u) => [u.id, u.email]));
}

/** Display names (null when a user has none) by id. */
export async function findUserNames({ userIds }: { userIds: string[] }): Promise<Map<string, string | null>> {
  if (userIds.length === 0) return new Map();
  const users = await getDb().user.findMany({
    where: { id: { in: [...new Set(userIds)] } },
    select: { id: true, name: true },
  });
  return new Map(users.map((u) => [u.id, u.name]));
}

/** Ids of users whose e-mail contains the text (e-mails are stored lower-case, so this is case-insensitive). */
export async function findUserIdsByEmailPart({
  part,
  limit = 200,
}: {
  part: string;
  limit?: number;
}): Promise<string[]> {
  const users = await getDb().user.findMany({
    where: { email: { contains: part.toLowerCase() } },
    select: { id: true },
    take: limit,
  });
  return users.map((u) => u.id);
}

/** E-mail (lower-cased) → id for the given addresses; addresses without a user are simply absent. */
export async function findUserIdsByEmails({ emails }: { emails: string[] }): Promise<Map<string, string>> {
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const users = await getDb().user.findMany({ where: { email: { in: wanted } }, select: { id: true, email: true } });
  return new Map(users.map((u) => [u.email, u.id]));
}

/** Active owners and their e-mail addresses: who is asked when no routing rule says otherwise (lib/notify). */
export async function listActiveOwners({ tx }: { tx?: Tx } = {}): Promise<
  Array<{ id: string; email: string; name: string | null }>
> {
  return (tx ?? getDb()).user.findMany({
    where: { disabledAt: null, roles: { some: { role: "owner" } } },
    select: { id: true, email: true, name: true },
    orderBy: { email: "asc" },
  });
}

/** The active owners among these e-mail addresses (a routing rule's approvers); others are left out. */
export async function listActiveOwnersByEmails({
  tx,
  emails,
}: {
  tx?: Tx;
  emails: string[];
}): Promise<Array<{ id: string; email: string }>> {
  const wanted = [...new Set(emails.map((e) => e.toLowerCase()))];
  if (wanted.length === 0) return [];
  return (tx ?? getDb()).user.findMany({
    where: { email: { in: wanted }, disabledAt: null, roles: { some: { role: "owner" } } },
    select: { id: true, email: true },
  });
}
