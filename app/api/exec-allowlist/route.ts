import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listAllowlistEntries } from "@/lib/db/allowlist";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("owner");
  return NextResponse.json({ entries: await listAllowlistEntries() });
});
