import { NextRequest } from "next/server";
import { handlers } from "@/lib/auth/auth";
import { AppError } from "@/lib/errors";
import { readBodyText, BODY_LIMITS } from "@/lib/http/body";
import { errorResponse } from "@/lib/http/respond";
import { isSameOrigin } from "@/lib/http/request-guard";
import { assertSignInOpen, clientAddress } from "@/lib/auth/throttle";

export const { GET } = handlers;

/**
 * next-auth's own POST endpoints (form posts with its CSRF token), behind three checks of ours: the post must
 * be same-origin, the form is read with a byte cap, and a throttled credentials sign-in answers 429 with
 * Retry-After before next-auth runs.
 */
export async function POST(request: NextRequest): Promise<Response> {
  try {
    if (!isSameOrigin(request.headers)) throw new AppError("FORBIDDEN", "cross-origin request refused");
    const form = await readBodyText(request, BODY_LIMITS.small);
    if (request.nextUrl.pathname.endsWith("/callback/credentials")) {
      const email = new URLSearchParams(form).get("email") ?? "";
      if (email) await assertSignInOpen({ email, address: clientAddress(request.headers) });
    }
    return handlers.POST(new NextRequest(request.url, { method: "POST", headers: request.headers, body: form }));
  } catch (error) {
    return errorResponse(error);
  }
}
