import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";
import { withdrawApproval } from "@/lib/runs/withdraw";

/** The requester withdraws a deferred request of theirs (no body). */
export const POST = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser();
  const approvalId = parseWith(IdSchema, (await params).id);
  return NextResponse.json(await withdrawApproval({ approvalId, userId: user.id }));
});
