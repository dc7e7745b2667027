import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { changeTeamMember } from "@/lib/admin/users-service";
import { TeamMemberBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

export const POST = handle(async (request: Request, { params }: Params) => {
  const actor = await requireRole("admin");
  const teamId = parseWith(z.string().trim().min(1).max(64), (await params).id);
  const body = await parseJsonBody(request, TeamMemberBody);
  await changeTeamMember({ actor, teamId, ...body });
  return NextResponse.json({ ok: true });
});
