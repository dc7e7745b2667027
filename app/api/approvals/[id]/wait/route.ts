import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { waitForDecision } from "@/lib/approvals/service";
import { getApprovalView } from "@/lib/approvals/views";
import { handle, parseSearchParams, parseWith } from "@/lib/http/respond";
import { IdSchema, WaitQuery } from "@/lib/http/approval-schemas";

/** Long-poll: `{ decision: null }` on timeout, the decision when there is one (also long after it was made). */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser();
  const approvalId = parseWith(IdSchema, (await params).id);
  const { timeoutMs } = parseSearchParams(request, WaitQuery);
  await getApprovalView({ user, approvalId });
  const result = await waitForDecision({ approvalId, timeoutMs });
  return NextResponse.json(result ?? { decision: null, status: "pending" });
});
