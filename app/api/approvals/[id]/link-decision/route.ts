import { NextResponse } from "next/server";
import { getCurrentUser } from "@/lib/auth/guards";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";
import { decideFromLink } from "@/lib/notify/link-decision";
import { LinkDecisionBody } from "@/lib/notify/schemas";

/**
 * The decision from an e-mail's confirmation page (app/decide/[id]): the owner's session, or the link's single-use
 * token for its own approver. Either is checked before anything is decided (lib/notify/link-decision.ts).
 */
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await getCurrentUser();
  const approvalId = parseWith(IdSchema, (await params).id);
  const body = await parseJsonBody(request, LinkDecisionBody);
  const outcome = await decideFromLink({ approvalId, user, ...body });
  return NextResponse.json(
    {
      id: approvalId,
      status: outcome.approval.status,
      decision: outcome.approval.decision,
      via: "email",
      ...(outcome.quorum ? { quorum: outcome.quorum } : {}),
    },
    { headers: { "cache-control": "no-store" } },
  );
});
