import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { getApprovalView } from "@/lib/approvals/views";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

export const GET = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const approvalId = parseWith(IdSchema, (await params).id);
  const user = await requireUser();
  return NextResponse.json({ approval: await getApprovalView({ user, approvalId }) });
});
