import "server-only";
// The session claim read straight from the request's session cookie, for the lean stream handler, which runs outside
// Next.js's request context (no `auth()` there). It reads what `auth()` reads and nothing more: the session cookie
// (chunked cookies too) under the name Auth.js uses for the request's protocol, decrypted with the same secret and salt;
// an Authorization header is ignored, as `auth()` ignores it. The claim is then checked against the database the same
// way (lib/auth/guards.ts).
import { getToken } from "next-auth/jwt";
import { loadConfig } from "@/lib/config";
import type { SessionClaim } from "./guards";

/** Auth.js picks the __Secure- cookie when the request's URL is https: AUTH_URL when set, else X-Forwarded-Proto, else the socket. */
function usesSecureCookie(headers: Headers, encrypted: boolean): boolean {
  const envUrl = process.env.AUTH_URL ?? process.env.NEXTAUTH_URL;
  if (envUrl) return envUrl.startsWith("https:");
  const proto = headers.get("x-forwarded-proto");
  // Auth.js reads it through new URL(), which lower-cases the scheme.
  if (proto !== null) return /^https:?$/i.test(proto);
  return encrypted;
}

export async function claimFromCookie(headers: Headers, encrypted: boolean): Promise<SessionClaim | null> {
  const cookie = headers.get("cookie");
  if (!cookie) return null;
  const token = await getToken({
    req: { headers: new Headers({ cookie }) },
    secret: loadConfig().AUTH_SECRET,
    secureCookie: usesSecureCookie(headers, encrypted),
  });
  const userId = token?.uid;
  if (typeof userId !== "string") return null;
  return {
    userId,
    sessionVersion: typeof token?.sv === "number" ? token.sv : -1,
    sessionId: typeof token?.sid === "string" ? token.sid : null,
  };
}
