import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { revokeGrant } from "@/lib/approvals/grants";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

export const DELETE = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const owner = await requireRole("owner");
  const id = parseWith(IdSchema, (await params).id);
  const grant = await revokeGrant({ id, actorId: owner.id });
  return NextResponse.json({ revoked: { id: grant.id, kind: grant.kind, rule: grant.pattern, scope: grant.scope } });
});
