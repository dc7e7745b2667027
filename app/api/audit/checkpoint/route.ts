import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { auditCheckpoint } from "@/lib/admin/audit-service";
import { handle } from "@/lib/http/respond";

/** The signed head of the audit chain, to keep outside the database and verify against later. */
export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ checkpoint: await auditCheckpoint() });
});
