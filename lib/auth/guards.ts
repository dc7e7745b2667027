import "server-only";
// Every route handler and server action calls one of these. The user is read from the database on every
// call, not from the token: roles decide power, and a token whose session version is older than the
// user's (sign-out, password change, role removal, deactivation) no longer counts as signed in.
import { AppError } from "@/lib/errors";
import type { Role } from "@/lib/policy/types";
import { getUserForSession, type UserWithRoles } from "@/lib/db/users";
import { auth } from "./auth";

export type CurrentUser = UserWithRoles;

/** What a token proved at sign-in: the user and the session version it was issued at. */
export type SessionClaim = { userId: string; sessionVersion: number };

export async function currentClaim(): Promise<SessionClaim | null> {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) return null;
  return { userId, sessionVersion: typeof session.user.sv === "number" ? session.user.sv : -1 };
}

// Requests of one user that arrive together share the lookup already in flight instead of sending one query each.
// A stream's re-check does not (see stillAuthorized): a lookup that began before a revocation could answer for an
// event published after it.
const globalForLookups = globalThis as unknown as { toolgateUserLookups?: Map<string, ReturnType<typeof getUserForSession>> };
const lookups = (globalForLookups.toolgateUserLookups ??= new Map());
function lookupUser(userId: string): ReturnType<typeof getUserForSession> {
  let lookup = lookups.get(userId);
  if (!lookup) {
    lookup = getUserForSession({ userId }).finally(() => lookups.delete(userId));
    lookups.set(userId, lookup);
  }
  return lookup;
}

function holds(found: Awaited<ReturnType<typeof getUserForSession>>, claim: SessionClaim): CurrentUser | null {
  if (!found || found.disabled || found.sessionVersion !== claim.sessionVersion) return null;
  return found.user;
}

/** The user behind a claim, or null when the claim was revoked (or the user deactivated or deleted). */
export async function userForClaim(claim: SessionClaim): Promise<CurrentUser | null> {
  return holds(await lookupUser(claim.userId), claim);
}

/**
 * For pages: the signed-in user, or why there is none. `ended` is true when the browser still holds a valid
 * session token whose session was revoked (deactivated, password reset, signed out elsewhere): the sign-in page
 * then says so, whichever request of the open tab learns it first.
 */
export async function currentUserOrEnded(): Promise<{ user: CurrentUser; ended: false } | { user: null; ended: boolean }> {
  const claim = await currentClaim();
  const user = claim ? await userForClaim(claim) : null;
  return user ? { user, ended: false } : { user: null, ended: claim !== null };
}

/** The signed-in user, or null. */
export async function getCurrentUser(): Promise<CurrentUser | null> {
  const claim = await currentClaim();
  return claim ? userForClaim(claim) : null;
}

export async function requireUser(): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) throw new AppError("UNAUTHENTICATED", "sign in first");
  return user;
}

export async function requireRole(role: Exclude<Role, "member">): Promise<CurrentUser> {
  const user = await requireUser();
  if (!hasRole(user, role)) throw new AppError("FORBIDDEN", `this needs the ${role} role`);
  return user;
}

/** For long-lived responses: the user and the claim the stream must keep satisfying (see stillAuthorized). */
export async function requireSession(role?: Exclude<Role, "member">): Promise<{ user: CurrentUser; claim: SessionClaim }> {
  return sessionFromClaim(await currentClaim(), role);
}

/** requireSession for a claim read elsewhere (the lean stream handler reads it from the cookie itself). */
export async function sessionFromClaim(claim: SessionClaim | null, role?: Exclude<Role, "member">): Promise<{ user: CurrentUser; claim: SessionClaim }> {
  const user = claim ? await userForClaim(claim) : null;
  if (!claim || !user) throw new AppError("UNAUTHENTICATED", "sign in first");
  if (role && !hasRole(user, role)) throw new AppError("FORBIDDEN", `this needs the ${role} role`);
  return { user, claim };
}

export function hasRole(user: { roles: Role[] }, role: Role): boolean {
  return user.roles.includes(role);
}

/**
 * For long-lived responses (SSE): a check that the same claim still holds, with the role if one is needed.
 * Streams run it before each event and on a timer, and close when it turns false. Checks with the same `key` answer
 * the same (same user, session version and role), so the streams of one claim share one run per event.
 */
export function stillAuthorized(claim: SessionClaim, role?: Exclude<Role, "member">): { key: string; stillAllowed: () => Promise<boolean> } {
  return {
    key: JSON.stringify([claim.userId, claim.sessionVersion, role ?? null]),
    // A fresh read each time (one per event per group of streams, lib/events/fan-out.ts), never a shared one in flight.
    stillAllowed: async () => {
      const user = holds(await getUserForSession({ userId: claim.userId }).catch(() => null), claim);
      return Boolean(user && (!role || hasRole(user, role)));
    },
  };
}
