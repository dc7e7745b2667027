import "server-only";
// The signed-in user's devices (issue 32): list, sign one out, sign out all others. Always the caller's own user
// id from the session, never one from the request: another user's session id answers as a missing one (404).
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { listLiveAuthSessions, revokeAuthSessionOfUser, revokeOtherAuthSessions } from "@/lib/db/auth-sessions";
import { announceAccountChange } from "@/lib/events/account-events";
import type { SessionClaim } from "./guards";
import type { DeviceView } from "./device-views";

export async function listMyDevices({ claim }: { claim: SessionClaim }): Promise<DeviceView[]> {
  const rows = await listLiveAuthSessions({ userId: claim.userId });
  // This device first, then the others by last activity (the order the database gave).
  const ordered = [...rows.filter((r) => r.id === claim.sessionId), ...rows.filter((r) => r.id !== claim.sessionId)];
  return ordered.map((r) => ({
    id: r.id,
    createdAt: r.createdAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
    userAgent: r.userAgent,
    ip: r.ip,
    current: r.id === claim.sessionId,
  }));
}

/** Signs one of the caller's devices out (this one too, if asked: that is signing out here). */
export async function signOutDevice({
  claim,
  sessionId,
}: {
  claim: SessionClaim;
  sessionId: string;
}): Promise<{ signedOut: true; current: boolean }> {
  if (!(await revokeAuthSessionOfUser({ userId: claim.userId, sessionId })))
    throw new AppError("NOT_FOUND", "no such signed-in device");
  await appendAudit({
    action: "user.session_revoked",
    actorId: claim.userId,
    decision: "allow",
    details: { userId: claim.userId, sessionId },
  });
  // Its open tabs re-check at once and go to the sign-in page (components/account-live.tsx).
  await announceAccountChange({ userId: claim.userId, change: "session-revoked" });
  return { signedOut: true, current: sessionId === claim.sessionId };
}

/** Signs out every device of the caller but this one (a lost phone, a shared computer). */
export async function signOutOtherDevices({ claim }: { claim: SessionClaim }): Promise<{ revoked: number }> {
  if (!claim.sessionId) throw new AppError("UNAUTHENTICATED", "sign in first");
  const revoked = await revokeOtherAuthSessions({ userId: claim.userId, keepId: claim.sessionId });
  await appendAudit({
    action: "user.sessions_revoked_others",
    actorId: claim.userId,
    decision: "allow",
    details: { userId: claim.userId, keptSessionId: claim.sessionId, revoked },
  });
  if (revoked > 0) await announceAccountChange({ userId: claim.userId, change: "session-revoked" });
  return { revoked };
}
