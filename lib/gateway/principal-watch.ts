import "server-only";
// An outside caller's call that waits (for an owner's approval) must not outlive its authority: it ends when its
// credential expires or is revoked, or its user is deactivated; for a personal token and for an OAuth access token
// (or its grant) alike. The state is re-read every few seconds while the call waits: any instance may have done the
// revoking, so no in-memory signal would do.
import { accessTokenEnd, type TokenPrincipal } from "@/lib/auth/access-tokens";
import { oauthPrincipalEnd, type OAuthPrincipal } from "@/lib/oauth/server";

const CHECK_EVERY_MS = 2_000;

export type PrincipalEnd = "TOKEN_EXPIRED" | "TOKEN_REVOKED";

/** A signal that aborts when the principal ends; `ended()` says why. Call `stop()` when the call is over. */
export function watchPrincipal(principal: TokenPrincipal | OAuthPrincipal): {
  signal: AbortSignal;
  ended: () => PrincipalEnd | null;
  stop: () => void;
} {
  const check =
    "oauth" in principal ? () => oauthPrincipalEnd(principal) : () => accessTokenEnd({ tokenId: principal.tokenId });
  const controller = new AbortController();
  let reason: PrincipalEnd | null = null;
  const end = (why: PrincipalEnd) => {
    if (reason) return;
    reason = why;
    controller.abort(new Error(why));
  };
  const timer = setInterval(() => {
    check()
      .then((why) => why && end(why))
      // A failed read is not a revocation; the next tick reads again.
      .catch(() => undefined);
  }, CHECK_EVERY_MS);
  const expiresAt = principal.expiresAt;
  const expiry = expiresAt
    ? setTimeout(() => end("TOKEN_EXPIRED"), Math.min(2 ** 31 - 1, Math.max(0, expiresAt.getTime() - Date.now())))
    : null;
  return {
    signal: controller.signal,
    ended: () => reason,
    stop: () => {
      clearInterval(timer);
      if (expiry) clearTimeout(expiry);
    },
  };
}
