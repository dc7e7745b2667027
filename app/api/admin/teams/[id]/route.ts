import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { removeTeam } from "@/lib/admin/users-service";
import { handle, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

export const DELETE = handle(async (_request: Request, { params }: Params) => {
  const teamId = parseWith(z.string().trim().min(1).max(64), (await params).id);
  const actor = await requireRole("admin");
  await removeTeam({ actor, teamId });
  return NextResponse.json({ ok: true });
});
