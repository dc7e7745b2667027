import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { revokeAllowlistEntry } from "@/lib/approvals/service";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

export const DELETE = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const id = parseWith(IdSchema, (await params).id);
  const owner = await requireRole("owner");
  const entry = await revokeAllowlistEntry({ id, actorId: owner.id });
  return NextResponse.json({ revoked: { id: entry.id, kind: entry.kind, pattern: entry.pattern } });
});
