// Next.js 16 proxy (formerly middleware) for pages: a fresh CSP nonce per request as the Next.js CSP guide
// documents, and same-origin only for state changes (server actions are POSTs to pages). API routes are not
// matched (they check origin and content type in lib/http/respond.ts, and stay out of the proxy so their
// bodies are never buffered before the handler has authenticated the caller), except paths with a percent
// escape: Next.js answers a bare 500 for an escape that does not decode (%ED%A0%80, a lone surrogate), so
// those are refused here with a 400 first.
import { NextResponse, type NextRequest } from "next/server";
import { isSafeMethod, isSameOrigin } from "@/lib/http/request-guard";

/** Server actions carry small forms; anything declared larger is refused before it is buffered. */
const MAX_ACTION_BYTES = 1024 * 1024;

export function pageCsp(nonce: string, dev = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

function decodes(pathname: string): boolean {
  try {
    pathname.split("/").forEach((segment) => decodeURIComponent(segment));
    return true;
  } catch {
    return false;
  }
}

export function proxy(request: NextRequest) {
  if (!decodes(request.nextUrl.pathname))
    return NextResponse.json(
      { error: { code: "BAD_REQUEST", message: "the path has an invalid percent escape" } },
      { status: 400 },
    );
  if (request.nextUrl.pathname.startsWith("/api/")) return NextResponse.next();
  if (!isSafeMethod(request.method)) {
    if (!isSameOrigin(request.headers))
      return NextResponse.json(
        { error: { code: "FORBIDDEN", message: "cross-origin request refused" } },
        { status: 403 },
      );
    if (Number(request.headers.get("content-length") ?? 0) > MAX_ACTION_BYTES)
      return NextResponse.json(
        { error: { code: "PAYLOAD_TOO_LARGE", message: `body is larger than ${MAX_ACTION_BYTES} bytes` } },
        { status: 413 },
      );
  }
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const csp = pageCsp(nonce);
  const requestHeaders = new Headers(request.headers);
  requestHeaders.set("x-nonce", nonce);
  // The page asked for, so a signed-out visitor comes back to it after signing in (app/(app)/layout.tsx).
  requestHeaders.set("x-toolgate-path", `${request.nextUrl.pathname}${request.nextUrl.search}`);
  requestHeaders.set("content-security-policy", csp);
  const response = NextResponse.next({ request: { headers: requestHeaders } });
  response.headers.set("content-security-policy", csp);
  return response;
}

export const config = {
  matcher: [
    "/api/:rest(.*%.*)",
    {
      // The operations endpoints (app/healthz, app/readyz, app/metrics) are not pages: no nonce, no redirect to
      // sign in; they are GET only, answer JSON or Prometheus text, and decide their own access.
      // /mcp and /.well-known/* are not pages either: no CSP nonce, no same-origin rule for POSTs (MCP clients send no
      // Origin; /mcp checks the bearer token and any Origin itself, lib/gateway/mcp-endpoint.ts), and their bodies
      // reach the handler unbuffered, which caps them after authenticating the caller. The OAuth endpoints that
      // clients call directly (token, register, revoke) are the same: cross-origin form or JSON POSTs with no cookie,
      // capped by their handlers. The consent page (/oauth/authorize) stays a page: nonce CSP, no framing.
      source:
        "/((?!api/|mcp$|mcp/|oauth/token$|oauth/register$|oauth/revoke$|\\.well-known/|_next/static|_next/image|favicon.ico|healthz$|readyz$|metrics$).*)",
      missing: [
        { type: "header", key: "next-router-prefetch" },
        { type: "header", key: "purpose", value: "prefetch" },
      ],
    },
  ],
};
