import "server-only";
// Every route handler and server action calls one of these. The user is read from the database on every
// call, not from the token: roles decide power, and a token whose session version is older than the
// user's (password change, role removal, deactivation), or whose signed-in session row is revoked or gone
// (sign-out, signed out from another device), no longer counts as signed in. While the user must replace an
// admin-issued password, every guard but the password change's refuses with 403 PASSWORD_CHANGE_REQUIRED.
import { AppError } from "@/lib/errors";
import type { Role } from "@/lib/policy/types";
import { getUserForSession, type UserWithRoles } from "@/lib/db/users";
import { touchAuthSession } from "@/lib/db/auth-sessions";
import { headers } from "next/headers";
import { claimFromCookie } from "./cookie-claim";
import { processSingleton } from "@/lib/process-singleton";

export type CurrentUser = UserWithRoles;

/**
 * What a token proved at sign-in: the user, the session version it was issued at and its signed-in session
 * (lib/db/auth-sessions.ts; null for a token from before them, which is refused).
 */
export type SessionClaim = { userId: string; sessionVersion: number; sessionId: string | null };

/**
 * The claim of the request's session cookie. Read as `auth()` reads it (same cookie, secret and salt; the same decrypt
 * and expiry check), without the rest of what `auth()` does for a route or page: it sends a Request through Auth.js's
 * session endpoint (a CSRF token made and hashed, a Response built and parsed) and re-encrypts the token for a renewed
 * cookie that it then drops (issue 27: CPU on every request). Without AUTH_URL or
 * X-Forwarded-Proto, Auth.js takes the request to be https (`encrypted` true), as `auth()` does.
 */
export async function currentClaim(): Promise<SessionClaim | null> {
  return claimFromCookie(await headers(), true);
}

type Found = Awaited<ReturnType<typeof getUserForSession>>;

// Requests of one session that arrive together share the lookup already in flight instead of sending one query each.
// A stream's re-check does not (see stillAuthorized): a lookup that began before a revocation could answer for an
// event published after it.
const lookups = processSingleton("toolgateUserLookups", () => new Map<string, Promise<Found>>());
function lookupUser(claim: SessionClaim): Promise<Found> {
  const key = `${claim.userId}\n${claim.sessionId ?? ""}`;
  let lookup = lookups.get(key);
  if (!lookup) {
    lookup = getUserForSession({ userId: claim.userId, authSessionId: claim.sessionId }).finally(() =>
      lookups.delete(key),
    );
    lookups.set(key, lookup);
  }
  return lookup;
}

/** lastSeenAt moves at most once a minute per session: a conditional write when the row read says it is older. */
const SEEN_EVERY_MS = 60_000;

function noteSeen(claim: SessionClaim, lastSeenAt: Date): void {
  const now = new Date();
  if (!claim.sessionId || now.getTime() - lastSeenAt.getTime() < SEEN_EVERY_MS) return;
  // Not awaited: a request never waits for (or fails on) the note; the write matches no row if another made it first.
  void touchAuthSession({
    sessionId: claim.sessionId,
    now,
    staleBefore: new Date(now.getTime() - SEEN_EVERY_MS),
  }).catch(() => undefined);
}

/** The claim still holds: the user is active, the version current and the signed-in session live. */
type Held = { user: CurrentUser; passwordMustChange: boolean };

function holds(found: Found, claim: SessionClaim): Held | null {
  if (!found || found.disabled || found.sessionVersion !== claim.sessionVersion) return null;
  if (!claim.sessionId || !found.authSession || found.authSession.revokedAt) return null;
  return { user: found.user, passwordMustChange: found.passwordMustChange };
}

async function heldClaim(claim: SessionClaim): Promise<Held | null> {
  const found = await lookupUser(claim);
  const held = holds(found, claim);
  if (held && found?.authSession) noteSeen(claim, found.authSession.lastSeenAt);
  return held;
}

/** The user behind a claim, or null when the claim was revoked (or the user deactivated or deleted). */
export async function userForClaim(claim: SessionClaim): Promise<CurrentUser | null> {
  return (await heldClaim(claim))?.user ?? null;
}

/** The refusal for everything but choosing a new password while an admin-issued one is in use (HTTP 403). */
export function passwordChangeRequired(): AppError {
  return new AppError(
    "PASSWORD_CHANGE_REQUIRED",
    "choose your own password first: the one in use was issued by an admin (POST /api/me/password)",
  );
}

/**
 * For pages: the signed-in user, or why there is none. `ended` is true when the browser still holds a valid
 * session token whose session was revoked (deactivated, password reset, signed out elsewhere): the sign-in page
 * then says so, whichever request of the open tab learns it first. `passwordMustChange`: the page must send the
 * person to /change-password and show nothing else.
 */
export async function currentUserOrEnded(): Promise<
  | { user: CurrentUser; ended: false; passwordMustChange: boolean }
  | { user: null; ended: boolean; passwordMustChange: false }
> {
  const claim = await currentClaim();
  const held = claim ? await heldClaim(claim) : null;
  return held
    ? { user: held.user, ended: false, passwordMustChange: held.passwordMustChange }
    : { user: null, ended: claim !== null, passwordMustChange: false };
}

/**
 * The signed-in user, or null. Null too while the user must change an admin-issued password: whatever asks
 * treats them as not signed in (fail closed); pages send them on through the sign-in page to /change-password.
 */
export async function getCurrentUser(): Promise<CurrentUser | null> {
  const claim = await currentClaim();
  const held = claim ? await heldClaim(claim) : null;
  return held && !held.passwordMustChange ? held.user : null;
}

/**
 * The signed-in user; 401 when there is none, 403 PASSWORD_CHANGE_REQUIRED while an admin-issued password is in use,
 * unless `allowPasswordChange` (only the route that changes it passes that).
 */
export async function requireUser({
  allowPasswordChange = false,
}: { allowPasswordChange?: boolean } = {}): Promise<CurrentUser> {
  return (await requireSessionOf(await currentClaim(), undefined, allowPasswordChange)).user;
}

export async function requireRole(role: Exclude<Role, "member">): Promise<CurrentUser> {
  return (await requireSession(role)).user;
}

/** For long-lived responses: the user and the claim the stream must keep satisfying (see stillAuthorized). */
export async function requireSession(
  role?: Exclude<Role, "member">,
): Promise<{ user: CurrentUser; claim: SessionClaim }> {
  return sessionFromClaim(await currentClaim(), role);
}

/** requireSession for a claim read elsewhere (the lean stream handler reads it from the cookie itself). */
export async function sessionFromClaim(
  claim: SessionClaim | null,
  role?: Exclude<Role, "member">,
): Promise<{ user: CurrentUser; claim: SessionClaim }> {
  return requireSessionOf(claim, role, false);
}

async function requireSessionOf(
  claim: SessionClaim | null,
  role: Exclude<Role, "member"> | undefined,
  allowPasswordChange: boolean,
): Promise<{ user: CurrentUser; claim: SessionClaim }> {
  const held = claim ? await heldClaim(claim) : null;
  if (!claim || !held) throw new AppError("UNAUTHENTICATED", "sign in first");
  if (held.passwordMustChange && !allowPasswordChange) throw passwordChangeRequired();
  if (role && !hasRole(held.user, role)) throw new AppError("FORBIDDEN", `this needs the ${role} role`);
  return { user: held.user, claim };
}

export function hasRole(user: { roles: Role[] }, role: Role): boolean {
  return user.roles.includes(role);
}

/**
 * For long-lived responses (SSE): a check that the same claim still holds, with the role if one is needed.
 * Streams run it before each event and on a timer, and close when it turns false. Checks with the same `key` answer
 * the same (same user, session version and role), so the streams of one claim share one run per event.
 */
export function stillAuthorized(
  claim: SessionClaim,
  role?: Exclude<Role, "member">,
): { key: string; stillAllowed: () => Promise<boolean> } {
  return {
    key: JSON.stringify([claim.userId, claim.sessionVersion, claim.sessionId, role ?? null]),
    // A fresh read each time (one per event per group of streams, lib/events/fan-out.ts), never a shared one in flight.
    stillAllowed: async () => {
      const held = holds(
        await getUserForSession({ userId: claim.userId, authSessionId: claim.sessionId }).catch(() => null),
        claim,
      );
      return Boolean(held && !held.passwordMustChange && (!role || hasRole(held.user, role)));
    },
  };
}
