import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listPolicyHistory } from "@/lib/admin/policy-service";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ versions: await listPolicyHistory() });
});
