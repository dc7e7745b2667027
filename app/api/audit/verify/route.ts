import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { verifyAudit } from "@/lib/admin/audit-service";
import { handle } from "@/lib/http/respond";

export const POST = handle(async () => {
  await requireRole("admin");
  return NextResponse.json(await verifyAudit());
});
