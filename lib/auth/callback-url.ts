// next-auth refuses a callback URL that is neither a path nor an http(s) URL by answering 500 from every one of its
// endpoints (its configuration check runs before each request: `?callbackUrl=javascript:x` on /api/auth/session,
// /csrf, /providers, /signin). The same rule, checked first, makes that a 400 with a JSON body; a stored
// callback-url cookie that fails it is dropped instead, so a planted cookie cannot make sign-in fail for good.
import { AppError } from "@/lib/errors";

const COOKIE = /^(__Secure-)?authjs\.callback-url$/;

/** next-auth's rule (lib/utils/assert.js): a path on this origin, or an absolute http(s) URL. */
export function isAcceptedCallbackUrl(value: string, origin: string): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? origin : undefined).protocol);
  } catch {
    return false;
  }
}

/**
 * The request next-auth may see: refused when its `callbackUrl` query value is one next-auth would fail on, and
 * without a callback-url cookie next-auth would fail on.
 */
export function checkedAuthRequest<R extends Request>(request: R, copy: (headers: Headers) => R): R {
  const url = new URL(request.url);
  for (const value of url.searchParams.getAll("callbackUrl")) {
    if (!isAcceptedCallbackUrl(value, url.origin))
      throw new AppError("BAD_REQUEST", "callbackUrl must be a path on this site or an http(s) URL");
  }
  const cookie = request.headers.get("cookie");
  if (!cookie) return request;
  const kept = cookie.split(";").filter((pair) => {
    const at = pair.indexOf("=");
    const name = (at < 0 ? pair : pair.slice(0, at)).trim();
    if (!COOKIE.test(name)) return true;
    let value = pair.slice(at + 1).trim();
    try {
      value = decodeURIComponent(value);
    } catch {
      return false;
    }
    return isAcceptedCallbackUrl(value, url.origin);
  });
  if (kept.length === cookie.split(";").length) return request;
  const headers = new Headers(request.headers);
  headers.set("cookie", kept.join(";"));
  return copy(headers);
}
