import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { addTeam, listUsersAndTeams } from "@/lib/admin/users-service";
import { CreateTeamBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ teams: (await listUsersAndTeams()).teams });
});

export const POST = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const body = await parseJsonBody(request, CreateTeamBody);
  return NextResponse.json({ team: await addTeam({ actor, ...body }) }, { status: 201 });
});
