import "server-only";
// Teams are the group layer's unit: a user's team ids select the `teams.<id>` rules of the policy document.
import { getDb } from "./client";

export async function listTeams() {
  const teams = await getDb().team.findMany({
    orderBy: { id: "asc" },
    include: { members: { select: { userId: true } } },
  });
  return teams.map((t) => ({
    id: t.id,
    name: t.name,
    createdAt: t.createdAt,
    memberIds: t.members.map((m) => m.userId),
  }));
}

export async function findTeam({ teamId }: { teamId: string }) {
  return getDb().team.findUnique({ where: { id: teamId } });
}

export async function createTeam({ id, name }: { id: string; name: string }) {
  return getDb().team.create({ data: { id, name } });
}

export async function deleteTeam({ teamId }: { teamId: string }) {
  await getDb().team.deleteMany({ where: { id: teamId } });
}

export async function addTeamMember({ teamId, userId }: { teamId: string; userId: string }) {
  await getDb().teamMember.upsert({
    where: { teamId_userId: { teamId, userId } },
    create: { teamId, userId },
    update: {},
  });
}

export async function removeTeamMember({ teamId, userId }: { teamId: string; userId: string }) {
  await getDb().teamMember.deleteMany({ where: { teamId, userId } });
}
