import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { rollbackPolicy } from "@/lib/admin/policy-service";
import { RollbackBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

export const POST = handle(async (request: Request) => {
  const actor = await requireRole("admin");
  const body = await parseJsonBody(request, RollbackBody);
  return NextResponse.json(await rollbackPolicy({ actor, version: body.version }), { status: 201 });
});
