import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { denyApprovals } from "@/lib/approvals/bulk";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { BulkDenyBody } from "@/lib/http/approval-schemas";

/** Denies each listed pending request (owners); reports which were denied and which were no longer pending. */
export const POST = handle(async (request: Request) => {
  const owner = await requireRole("owner");
  const body = await parseJsonBody(request, BulkDenyBody);
  return NextResponse.json(await denyApprovals({ ids: body.ids, ownerId: owner.id, reason: body.reason }));
});
