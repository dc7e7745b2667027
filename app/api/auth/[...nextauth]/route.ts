import { NextRequest } from "next/server";
import { handlers } from "@/lib/auth/auth";
import { AppError } from "@/lib/errors";
import { readBodyText, BODY_LIMITS } from "@/lib/http/body";
import { errorResponse } from "@/lib/http/respond";
import { isSameOrigin } from "@/lib/http/request-guard";
import { assertSignInOpen, clientAddress, isSignInExempt } from "@/lib/auth/throttle";
import { checkedAuthRequest, isAcceptedCallbackUrl } from "@/lib/auth/callback-url";
import { looksLikeRecoveryCode } from "@/lib/auth/recovery-codes";
import { currentClaim, userForClaim } from "@/lib/auth/guards";

/**
 * Signed out, for a session read with a revoked token: GET, and POST (Auth.js's update, which the holder of the
 * cookie can send with the CSRF token; it answers the session and renews the cookie just the same).
 */
async function endedSessionAnswer(request: NextRequest): Promise<Response | null> {
  if (!request.nextUrl.pathname.endsWith("/session")) return null;
  const claim = await currentClaim();
  if (!claim || (await userForClaim(claim))) return null;
  return Response.json(null, { headers: { "cache-control": "private, no-cache, no-store" } });
}

/**
 * next-auth's GET endpoints, after the callback URL check it would otherwise answer with a 500 (lib/auth/callback-url.ts).
 * Its session read only checks the token's signature and expiry: a token whose device session was revoked, whose
 * user was deactivated or whose session version is old would still be answered (and renewed). Such a token gets
 * next-auth's signed-out answer instead, as every guarded route refuses it; the cookie stays, so pages can still say
 * the session ended.
 */
export async function GET(request: NextRequest): Promise<Response> {
  try {
    const checked = checkedAuthRequest(request, (headers) => new NextRequest(request.url, { method: "GET", headers }));
    const ended = await endedSessionAnswer(request);
    if (ended) return ended;
    return await handlers.GET(checked);
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * next-auth's own POST endpoints (form posts with its CSRF token), behind three checks of ours: the post must
 * be same-origin, the form is read with a byte cap, and a throttled credentials sign-in answers 429 with
 * Retry-After before next-auth runs.
 */
export async function POST(request: NextRequest): Promise<Response> {
  try {
    if (!isSameOrigin(request.headers)) throw new AppError("FORBIDDEN", "cross-origin request refused");
    const form = await readBodyText(request, BODY_LIMITS.small);
    const fields = new URLSearchParams(form);
    const callbackUrl = fields.get("callbackUrl");
    if (callbackUrl && !isAcceptedCallbackUrl(callbackUrl, request.nextUrl.origin))
      throw new AppError("BAD_REQUEST", "callbackUrl must be a path on this site or an http(s) URL");
    if (request.nextUrl.pathname.endsWith("/callback/credentials")) {
      const email = fields.get("email") ?? "";
      const attempt = { email, address: clientAddress(request.headers) };
      // A recovery code and an admin on a trusted network are not held by the sign-in limits (authorize decides).
      if (email && !looksLikeRecoveryCode(fields.get("password") ?? "") && !(await isSignInExempt(attempt)))
        await assertSignInOpen(attempt);
    }
    const ended = await endedSessionAnswer(request);
    if (ended) return ended;
    const checked = checkedAuthRequest(request, (headers) => new NextRequest(request.url, { method: "POST", headers }));
    return handlers.POST(new NextRequest(request.url, { method: "POST", headers: checked.headers, body: form }));
  } catch (error) {
    return errorResponse(error);
  }
}
