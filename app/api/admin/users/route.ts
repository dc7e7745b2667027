import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listUsers } from "@/lib/db/users";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ users: await listUsers() });
});
