import "server-only";
// Accounts, roles and teams. Roles and teams are read from the database on every request (requireUser), so a
// change applies to the target's next request, and is pushed to their open pages (lib/events/account-events).
// Every change is audited; one-time passwords are shown to the admin once and never stored in clear or audited.
import type { Role } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { addTeamMember, createTeam, deleteTeam, findTeam, listTeams, removeTeamMember } from "@/lib/db/teams";
import {
  addUserRole,
  changeUserPassword,
  countActiveAdmins,
  createUser,
  getUserWithRoles,
  listUsers,
  removeUserRole,
} from "@/lib/db/users";
import { hashPassword, newTemporaryPassword } from "@/lib/auth/password";
import { announceAccountChange } from "@/lib/events/account-events";
import type { AsJson } from "@/lib/as-json";
import type { UsersResponse } from "./user-views";

type Actor = { id: string };

export async function listUsersAndTeams() {
  const [users, teams] = await Promise.all([listUsers(), listTeams()]);
  return { users, teams: teams.map((t) => ({ ...t, createdAt: t.createdAt.toISOString() })) };
}
// The answer's shape is defined once (./user-views.ts, which the admin pages import): this fails to compile on drift.
const _answer = (v: AsJson<Awaited<ReturnType<typeof listUsersAndTeams>>>): UsersResponse => v;

export async function changeUserRole({
  actor,
  userId,
  role,
  action,
}: {
  actor: Actor;
  userId: string;
  role: Role;
  action: "add" | "remove";
}) {
  const target = await getUserWithRoles({ userId });
  if (!target) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (action === "remove" && role === "admin" && userId === actor.id) {
    // Otherwise the last admin could lock everyone out of the admin pages.
    throw new AppError("CONFLICT", "you cannot remove your own admin role; ask another admin to do it");
  }
  if (
    action === "remove" &&
    role === "admin" &&
    target.roles.includes("admin") &&
    (await countActiveAdmins({ exceptUserId: userId })) === 0
  ) {
    throw new AppError("CONFLICT", "this is the last active admin; make someone else admin first");
  }
  if (action === "add") await addUserRole({ userId, role });
  else await removeUserRole({ userId, role });
  await appendAudit({
    action: `user.role_${action === "add" ? "added" : "removed"}`,
    actorId: actor.id,
    decision: "allow",
    details: { userId, email: target.email, role },
  });
  await announceAccountChange({ userId, change: "roles" });
  return getUserWithRoles({ userId });
}

/** A new account with a one-time password for the admin to hand over (shown once; see newTemporaryPassword); its holder must replace it at first sign-in. */
export async function createAccount({
  actor,
  email,
  name,
  roles,
}: {
  actor: Actor;
  email: string;
  name?: string;
  roles: Role[];
}) {
  const temporaryPassword = newTemporaryPassword();
  // Every account is a member: the other roles add to it, they never replace it.
  const withMember: Role[] = ["member", ...roles.filter((r) => r !== "member")];
  const user = await createUser({
    email,
    name,
    roles: withMember,
    passwordHash: await hashPassword(temporaryPassword),
    mustChange: true,
  });
  if (!user) throw new AppError("CONFLICT", `there is already a user with the e-mail ${email}`);
  await appendAudit({
    action: "user.created",
    actorId: actor.id,
    decision: "allow",
    details: { userId: user.id, email: user.email, roles: withMember },
  });
  return { user: { ...user, active: true }, temporaryPassword };
}

/** A new one-time password; the user's sessions end in the same write. Your own password is changed with the old one. */
export async function resetPassword({ actor, userId }: { actor: Actor; userId: string }) {
  const target = await getUserWithRoles({ userId });
  if (!target) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (userId === actor.id)
    throw new AppError("CONFLICT", "change your own password with your current one, not by a reset");
  const temporaryPassword = newTemporaryPassword();
  // A one-time password: the user must choose their own before anything else (lib/auth/guards.ts).
  await changeUserPassword({ userId, passwordHash: await hashPassword(temporaryPassword), mustChange: true });
  await appendAudit({
    action: "user.password_reset",
    actorId: actor.id,
    decision: "allow",
    details: { userId, email: target.email },
  });
  await announceAccountChange({ userId, change: "password-reset" });
  return { userId, temporaryPassword };
}

export async function addTeam({ actor, id, name }: { actor: Actor; id: string; name: string }) {
  if (await findTeam({ teamId: id })) throw new AppError("CONFLICT", `a team with id "${id}" already exists`);
  await createTeam({ id, name });
  await appendAudit({ action: "team.created", actorId: actor.id, decision: "allow", details: { teamId: id, name } });
  return { id, name, memberIds: [] as string[] };
}

export async function removeTeam({ actor, teamId }: { actor: Actor; teamId: string }) {
  if (!(await findTeam({ teamId }))) throw new AppError("NOT_FOUND", `there is no team "${teamId}"`);
  await deleteTeam({ teamId });
  await appendAudit({ action: "team.deleted", actorId: actor.id, decision: "allow", details: { teamId } });
  await announceAccountChange({ userId: null, change: "teams" });
}

export async function changeTeamMember({
  actor,
  teamId,
  userId,
  action,
}: {
  actor: Actor;
  teamId: string;
  userId: string;
  action: "add" | "remove";
}) {
  if (!(await findTeam({ teamId }))) throw new AppError("NOT_FOUND", `there is no team "${teamId}"`);
  if (!(await getUserWithRoles({ userId }))) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (action === "add") await addTeamMember({ teamId, userId });
  else await removeTeamMember({ teamId, userId });
  await appendAudit({
    action: `team.member_${action === "add" ? "added" : "removed"}`,
    actorId: actor.id,
    decision: "allow",
    details: { teamId, userId },
  });
  // Team membership decides mode grants: their open pages re-read them.
  await announceAccountChange({ userId, change: "teams" });
}
