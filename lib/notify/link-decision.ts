import "server-only";
// Decisions from outside the app (an e-mail's confirmation page). A link never decides by itself: opening it (a
// mail scanner's GET) only shows the confirmation page; the decision is the page's POST, made with the owner's
// session or with the link's token. A token decides only its own approval, with the arguments it was minted for,
// for its own approver (who must still be an active owner), before the request expires, and once. Allow-always
// from outside the app needs a session: a forwarded mail must not be able to store a standing grant.
import { AppError } from "@/lib/errors";
import { findApproval } from "@/lib/db/approvals";
import { insertLinkUse } from "@/lib/db/approval-deliveries";
import { getUserWithRoles, isUserActive } from "@/lib/db/users";
import type { CurrentUser } from "@/lib/auth/guards";
import { decideApproval, type DecisionOutcome } from "@/lib/approvals/service";
import type { GrantChoice } from "@/lib/approvals/grant-choice";
import type { ApprovalDecision } from "@/lib/db/approvals";
import { readLinkToken, type LinkClaims } from "./link-token";
import { outsideApproval, type OutsideApproval } from "./payload";

export type LinkCheck =
  | { ok: true; claims: LinkClaims; approver: { id: string; email: string; name: string | null } }
  | { ok: false; problem: string };

/** Whether a token may decide this approval now (nothing is recorded). */
export async function checkLink({ approvalId, token }: { approvalId: string; token: string }): Promise<LinkCheck> {
  const claims = readLinkToken(token);
  if (!claims) return { ok: false, problem: "the link is not valid (altered, expired or from another server)" };
  if (claims.a !== approvalId) return { ok: false, problem: "the link belongs to another request" };
  const approval = await findApproval({ id: approvalId });
  if (!approval) return { ok: false, problem: "no such request" };
  if (approval.argsHash !== claims.h)
    return { ok: false, problem: "the request's arguments are not those the link was made for" };
  const approver = await getUserWithRoles({ userId: claims.u });
  if (!approver || !approver.roles.includes("owner") || !(await isUserActive({ userId: approver.id })))
    return { ok: false, problem: "the link's approver is no longer an active owner" };
  return { ok: true, claims, approver: { id: approver.id, email: approver.email, name: approver.name } };
}

export async function decideFromLink({
  approvalId,
  token,
  user,
  decision,
  reason,
  grant,
}: {
  approvalId: string;
  token?: string;
  /** The signed-in owner, if any (a session decides without a token). */
  user: CurrentUser | null;
  decision: ApprovalDecision;
  reason?: string;
  grant?: GrantChoice;
}): Promise<DecisionOutcome> {
  if (!token) {
    if (!user) throw new AppError("UNAUTHENTICATED", "sign in, or use the link from your e-mail");
    if (!user.roles.includes("owner")) throw new AppError("FORBIDDEN", "this needs the owner role");
    return decideApproval({ approvalId, ownerId: user.id, decision, reason, grant, via: "email" });
  }
  if (decision === "allow-always")
    throw new AppError(
      "FORBIDDEN",
      "allow always from outside the app needs a signed-in session: open the request in the inbox",
    );
  if (grant) throw new AppError("BAD_REQUEST", "grant applies to allow-always only");
  const check = await checkLink({ approvalId, token });
  if (!check.ok) throw new AppError("FORBIDDEN", check.problem);
  const approval = (await findApproval({ id: approvalId }))!;
  if (approval.status !== "pending" || approval.expiresAt <= new Date())
    throw new AppError(
      "CONFLICT",
      `this request is already ${approval.status === "pending" ? "expired" : approval.status}`,
      { status: approval.status },
    );
  // Spent before deciding: a token that reached this point never decides again, even if the decision fails.
  if (!(await insertLinkUse({ nonce: check.claims.n, approvalId, userId: check.approver.id })))
    throw new AppError("FORBIDDEN", "this link has already been used");
  return decideApproval({ approvalId, ownerId: check.approver.id, decision, reason, via: "email" });
}

export type LinkPage =
  | { state: "refused"; problem: string; signIn: boolean }
  | { state: "ready"; approval: OutsideApproval; via: "token" | "session"; approverEmail: string };

/** What the confirmation page shows: nothing of the request without a valid token or an owner's session. */
export async function linkPageView({
  approvalId,
  token,
  user,
}: {
  approvalId: string;
  token?: string;
  user: CurrentUser | null;
}): Promise<LinkPage> {
  if (token) {
    const check = await checkLink({ approvalId, token });
    if (!check.ok) return { state: "refused", problem: check.problem, signIn: !user };
    const approval = await outsideApproval(approvalId);
    return approval
      ? { state: "ready", approval, via: "token", approverEmail: check.approver.email }
      : { state: "refused", problem: "no such request", signIn: false };
  }
  if (!user) return { state: "refused", problem: "sign in, or use the link from your e-mail", signIn: true };
  if (!user.roles.includes("owner")) return { state: "refused", problem: "only owners decide requests", signIn: false };
  const approval = await outsideApproval(approvalId);
  return approval
    ? { state: "ready", approval, via: "session", approverEmail: user.email }
    : { state: "refused", problem: "no such request", signIn: false };
}
