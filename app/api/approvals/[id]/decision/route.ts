import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { decideApproval } from "@/lib/approvals/service";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";
import { DecisionBody, IdSchema } from "@/lib/http/approval-schemas";

export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const owner = await requireRole("owner");
  const approvalId = parseWith(IdSchema, (await params).id);
  const body = await parseJsonBody(request, DecisionBody);
  const outcome = await decideApproval({
    approvalId,
    ownerId: owner.id,
    decision: body.decision,
    reason: body.reason,
    grant: body.grant,
  });
  // The run continues on whichever instance claims it first (lib/runs hears approval.resolved).
  return NextResponse.json({
    id: approvalId,
    status: outcome.approval.status,
    decision: outcome.approval.decision,
    allowlisted: outcome.allowlisted,
    refused: outcome.refused,
    ...(outcome.quorum ? { quorum: outcome.quorum } : {}),
  });
});
