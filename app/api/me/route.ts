import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { handle } from "@/lib/http/respond";

export const GET = handle(async () => {
  const user = await requireUser();
  return NextResponse.json({ user });
});
