import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { revokeAllCredentials } from "@/lib/auth/credentials";
import { handle, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

/** An admin ends every access token and OAuth grant of a user (a lost laptop, a leaked token); audited with the admin as actor. */
export const POST = handle(async (_request: Request, { params }: Params) => {
  const actor = await requireRole("admin");
  const userId = parseWith(z.string().trim().min(1).max(200), (await params).id);
  return NextResponse.json({ revoked: await revokeAllCredentials({ actor, userId }) });
});
