import "server-only";
// Roles and teams. Both are read from the database on every request (requireUser), so a change applies to the
// target's next request without signing out. Every change is audited.
import type { Role } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { addTeamMember, createTeam, deleteTeam, findTeam, listTeams, removeTeamMember } from "@/lib/db/teams";
import { addUserRole, getUserWithRoles, listUsers, removeUserRole } from "@/lib/db/users";

type Actor = { id: string };

export async function listUsersAndTeams() {
  const [users, teams] = await Promise.all([listUsers(), listTeams()]);
  return { users, teams: teams.map((t) => ({ ...t, createdAt: t.createdAt.toISOString() })) };
}

export async function changeUserRole({ actor, userId, role, action }: { actor: Actor; userId: string; role: Role; action: "add" | "remove" }) {
  const target = await getUserWithRoles({ userId });
  if (!target) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (action === "remove" && role === "admin" && userId === actor.id) {
    // Otherwise the last admin could lock everyone out of the admin pages.
    throw new AppError("CONFLICT", "you cannot remove your own admin role; ask another admin to do it");
  }
  if (action === "add") await addUserRole({ userId, role });
  else await removeUserRole({ userId, role });
  await appendAudit({ action: `user.role_${action === "add" ? "added" : "removed"}`, actorId: actor.id, decision: "allow", details: { userId, email: target.email, role } });
  return getUserWithRoles({ userId });
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
}

export async function changeTeamMember({ actor, teamId, userId, action }: { actor: Actor; teamId: string; userId: string; action: "add" | "remove" }) {
  if (!(await findTeam({ teamId }))) throw new AppError("NOT_FOUND", `there is no team "${teamId}"`);
  if (!(await getUserWithRoles({ userId }))) throw new AppError("NOT_FOUND", `there is no user ${userId}`);
  if (action === "add") await addTeamMember({ teamId, userId });
  else await removeTeamMember({ teamId, userId });
  await appendAudit({ action: `team.member_${action === "add" ? "added" : "removed"}`, actorId: actor.id, decision: "allow", details: { teamId, userId } });
}
