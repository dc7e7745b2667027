import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listUsersAndTeams } from "@/lib/admin/users-service";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json(await listUsersAndTeams());
});
