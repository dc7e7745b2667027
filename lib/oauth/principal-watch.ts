import "server-only";
// An OAuth principal's call that waits (for an owner's approval) must not outlive its authority: it ends when the
// access token expires or is revoked, its grant is revoked or its user deactivated. The state is re-read every
// few seconds while the call waits (any instance may have done the revoking, so no in-memory signal would do).
import { findOAuthTokenState } from "@/lib/db/oauth";
import type { OAuthPrincipal } from "./server";

const CHECK_EVERY_MS = 2_000;

export type PrincipalEnd = "TOKEN_EXPIRED" | "TOKEN_REVOKED";

export async function oauthPrincipalEnd(principal: OAuthPrincipal, now = new Date()): Promise<PrincipalEnd | null> {
  const state = await findOAuthTokenState({ tokenId: principal.oauth.accessTokenId });
  if (!state || state.revokedAt || state.grant.revokedAt || state.grant.user.disabledAt) return "TOKEN_REVOKED";
  if (state.expiresAt <= now) return "TOKEN_EXPIRED";
  return null;
}

/** A signal that aborts when the principal ends; `ended()` says why. Call `stop()` when the call is over. */
export function watchOAuthPrincipal(principal: OAuthPrincipal): { signal: AbortSignal; ended: () => PrincipalEnd | null; stop: () => void } {
  const controller = new AbortController();
  let reason: PrincipalEnd | null = null;
  const end = (why: PrincipalEnd) => {
    if (reason) return;
    reason = why;
    controller.abort(new Error(why));
  };
  const timer = setInterval(() => {
    oauthPrincipalEnd(principal)
      .then((why) => why && end(why))
      // A failed read is not a revocation; the next tick reads again.
      .catch(() => undefined);
  }, CHECK_EVERY_MS);
  const expiry = setTimeout(() => end("TOKEN_EXPIRED"), Math.max(0, principal.oauth.expiresAt.getTime() - Date.now()));
  return {
    signal: controller.signal,
    ended: () => reason,
    stop: () => {
      clearInterval(timer);
      clearTimeout(expiry);
    },
  };
}
