import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listGrantViews } from "@/lib/approvals/grants";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("owner");
  return NextResponse.json({ grants: await listGrantViews() });
});
