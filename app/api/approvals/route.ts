import { NextResponse } from "next/server";
import { requireRole, requireUser } from "@/lib/auth/guards";
import { requestApproval } from "@/lib/approvals/service";
import { listApprovalViews } from "@/lib/approvals/views";
import { requireOwnedSession } from "@/lib/agent/sessions";
import { analyzeShellCommand, normalizeToolName } from "@/lib/policy";
import { handle, parseJsonBody, parseSearchParams } from "@/lib/http/respond";
import { ListApprovalsQuery, RequestApprovalBody } from "@/lib/http/approval-schemas";

export const GET = handle(async (request: Request) => {
  const query = parseSearchParams(request, ListApprovalsQuery);
  await requireRole("owner");
  return NextResponse.json({ approvals: await listApprovalViews(query) });
});

/** Two-phase request: registered first, answered `accepted` with the id; the decision comes later. */
export const POST = handle(async (request: Request) => {
  const body = await parseJsonBody(request, RequestApprovalBody);
  const user = await requireUser();
  await requireOwnedSession({ user, sessionId: body.sessionId });
  const toolName = normalizeToolName(body.toolName);
  const command = toolName === "exec" && typeof body.args.command === "string" ? body.args.command : null;
  const { approval } = await requestApproval({
    kind: toolName === "exec" ? "exec" : "tool",
    sessionId: body.sessionId,
    requesterId: user.id,
    toolName,
    callId: body.callId,
    args: body.args,
    command,
    analysis: command !== null ? analyzeShellCommand(command) : null,
    reason: body.reason ?? "requested through the API",
  });
  return NextResponse.json({ status: "accepted", id: approval.id, expiresAt: approval.expiresAt }, { status: 202 });
});
