import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { revokeToken } from "@/lib/auth/access-tokens";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

/** The token's owner or an admin revokes it; it stops working at once (every request reads it). */
export const DELETE = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser();
  const id = parseWith(IdSchema, (await params).id);
  return NextResponse.json({ accessToken: await revokeToken({ actor: user, id }) });
});
