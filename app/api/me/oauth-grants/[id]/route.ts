import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { revokeMyOAuthGrant } from "@/lib/auth/credentials";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

/** Revokes one of the caller's grants and every token under it; another user's grant is a 404 like an unknown one. */
export const DELETE = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser();
  const id = parseWith(IdSchema, (await params).id);
  await revokeMyOAuthGrant({ user, grantId: id });
  return NextResponse.json({ ok: true });
});
