import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { searchAudit } from "@/lib/admin/audit-service";
import { AuditQuery } from "@/lib/admin/schemas";
import { handle, parseSearchParams } from "@/lib/http/respond";

export const GET = handle(async (request: Request) => {
  await requireRole("admin");
  const query = parseSearchParams(request, AuditQuery);
  return NextResponse.json(await searchAudit(query));
});
