// Redirect URIs and PKCE for OAuth 2.1 (issue 30), pure. A redirect URI is matched exactly as registered, except
// that a loopback one (http://127.0.0.1, http://[::1], http://localhost) matches on any port: a native client
// picks a free port when it runs (RFC 8252 section 7.3, OAuth 2.1 section 8.4.2). Nothing else is loosened:
// no prefix, no case folding, no added query.
import { createHash } from "node:crypto";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes that would run or read something in the browser instead of handing the code to a client. */
const REFUSED_SCHEMES = new Set([
  "javascript:",
  "data:",
  "file:",
  "vbscript:",
  "about:",
  "blob:",
  "filesystem:",
  "ftp:",
  "ws:",
  "wss:",
]);

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname);
}

/** Why a redirect URI may not be registered, or null when it may: https, http on loopback, or a private-use scheme. */
export function redirectUriProblem(uri: string): string | null {
  const url = parse(uri);
  if (!url) return "is not an absolute URL";
  if (url.hash || uri.includes("#")) return "must not have a fragment";
  if (url.username || url.password) return "must not carry credentials";
  if (REFUSED_SCHEMES.has(url.protocol)) return `may not use the ${url.protocol} scheme`;
  if (url.protocol === "http:" && !isLoopback(url)) return "must use https (http only on a loopback address)";
  return null;
}

/** Whether the requested redirect URI is one of the registered ones (see above for loopback ports). */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const want = parse(requested);
  if (!want || !isLoopback(want) || requested.includes("#")) return false;
  return registered.some((uri) => {
    const have = parse(uri);
    if (!have || !isLoopback(have)) return false;
    // Compared without the port, everything else exactly (the text, not a normalised form, beyond the port).
    const strip = (u: URL, text: string) => text.replace(`${u.protocol}//${u.host}`, `${u.protocol}//${u.hostname}`);
    return have.hostname === want.hostname && strip(have, uri) === strip(want, requested);
  });
}

/** PKCE code verifier: 43 to 128 unreserved characters (RFC 7636 section 4.1). */
export const CODE_VERIFIER_SHAPE = /^[A-Za-z0-9._~-]{43,128}$/;
/** An S256 challenge is the base64url of a SHA-256: 43 characters. */
export const CODE_CHALLENGE_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** S256 only: `plain` would let whoever sees the authorization request redeem the code. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER_SHAPE.test(verifier) || !CODE_CHALLENGE_SHAPE.test(challenge)) return false;
  return createHash("sha256").update(verifier).digest("base64url") === challenge;
}
