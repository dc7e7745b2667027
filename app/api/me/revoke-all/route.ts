import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { revokeAllCredentials } from "@/lib/auth/credentials";
import { handle } from "@/lib/http/respond";

/** Every access token and OAuth grant of the caller stops working at once. Not rate-limited: it only ever removes access. */
export const POST = handle(async (_request: Request) => {
  const user = await requireUser();
  return NextResponse.json({ revoked: await revokeAllCredentials({ actor: user, userId: user.id }) });
});
