import { NextResponse } from "next/server";
import { requireRole, requireUser } from "@/lib/auth/guards";
import { consumeUserQuota } from "@/lib/auth/throttle";
import { API_REQUEST_REASON, requestApproval } from "@/lib/approvals/service";
import { listApprovalViews } from "@/lib/approvals/views";
import { requireOwnedSession } from "@/lib/sessions/access";
import { normalizeToolName } from "@/lib/policy";
import { analyzeShellCommand, loadShellParser } from "@/lib/exec/shell-parser";
import { handle, parseJsonBody, parseSearchParams } from "@/lib/http/respond";
import { BODY_LIMITS } from "@/lib/http/body";
import { ListApprovalsQuery, RequestApprovalBody } from "@/lib/http/approval-schemas";

export const GET = handle(async (request: Request) => {
  await requireRole("owner");
  const query = parseSearchParams(request, ListApprovalsQuery);
  return NextResponse.json(await listApprovalViews(query));
});

/**
 * Two-phase request: registered first, answered `accepted` with the id; the decision comes later. The body's
 * `reason` is the requester's note, never the approval's reason.
 */
export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  await consumeUserQuota("approvals", user.id);
  const body = await parseJsonBody(request, RequestApprovalBody, BODY_LIMITS.approval);
  await requireOwnedSession({ user, sessionId: body.sessionId });
  const toolName = normalizeToolName(body.toolName);
  const command = toolName === "exec" && typeof body.args.command === "string" ? body.args.command : null;
  await loadShellParser();
  const { approval } = await requestApproval({
    kind: toolName === "exec" ? "exec" : "tool",
    sessionId: body.sessionId,
    requesterId: user.id,
    toolName,
    callId: body.callId,
    args: body.args,
    command,
    analysis: command !== null ? analyzeShellCommand(command) : null,
    // The "why" is Toolgate's; what the requester wrote is kept apart as their note.
    reason: API_REQUEST_REASON,
    requesterNote: body.reason || null,
  });
  return NextResponse.json({ status: "accepted", id: approval.id, expiresAt: approval.expiresAt }, { status: 202 });
});
