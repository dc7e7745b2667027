import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { changeUserRole } from "@/lib/admin/users-service";
import { RoleChangeBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

export const POST = handle(async (request: Request, { params }: Params) => {
  const actor = await requireRole("admin");
  const userId = parseWith(z.string().trim().min(1).max(200), (await params).id);
  const body = await parseJsonBody(request, RoleChangeBody);
  return NextResponse.json({ user: await changeUserRole({ actor, userId, ...body }) });
});
