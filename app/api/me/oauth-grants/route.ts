import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { listMyOAuthGrants } from "@/lib/auth/credentials";
import { handle } from "@/lib/http/respond";

/** The caller's live OAuth grants (connected apps): never another user's. */
export const GET = handle(async (_request: Request) => {
  const user = await requireUser();
  return NextResponse.json({ grants: await listMyOAuthGrants({ user }) });
});
