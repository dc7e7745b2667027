// CSRF defence for every state-changing route: the request must come from this origin (Origin, or the
// browser's Sec-Fetch-Site when there is no Origin), and a body must be typed application/json, which no HTML
// form and no "simple" cross-site fetch can send without a preflight. Browsers send Origin on every POST, PUT,
// PATCH and DELETE, so a body-less state change (stop, delete, verify) is covered by the origin check.
// Non-browser clients send neither header and pass the origin check; their bodies still need the JSON type.
import { AppError } from "@/lib/errors";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function isSafeMethod(method: string): boolean {
  return SAFE_METHODS.has(method.toUpperCase());
}

/** The host the browser addressed (Host header); an Origin naming another host or port is cross-origin. */
export function isSameOrigin(headers: Headers): boolean {
  const site = headers.get("sec-fetch-site");
  if (site !== null && site !== "same-origin" && site !== "none") return false;
  const origin = headers.get("origin");
  if (origin === null) return true;
  const host = headers.get("host");
  if (!host || origin === "null") return false;
  try {
    return new URL(origin).host.toLowerCase() === host.toLowerCase();
  } catch {
    return false;
  }
}

export function isJsonContentType(headers: Headers): boolean {
  const type = headers.get("content-type");
  if (!type) return false;
  const media = type.split(";")[0]!.trim().toLowerCase();
  return media === "application/json";
}

/** A body is present when one is declared (a non-zero Content-Length, or chunked) or a content type is named. */
export function hasBody(headers: Headers): boolean {
  const length = headers.get("content-length");
  return (length !== null && length.trim() !== "0") || headers.has("transfer-encoding") || headers.has("content-type");
}

/** Throws 403 for a cross-origin state change and 415 for a state change whose body is not typed JSON. */
export function assertStateChangeAllowed(request: Request): void {
  if (isSafeMethod(request.method)) return;
  if (!isSameOrigin(request.headers))
    throw new AppError("FORBIDDEN", "cross-origin request refused: state changes must come from this site");
  if (hasBody(request.headers) && !isJsonContentType(request.headers))
    throw new AppError(
      "UNSUPPORTED_MEDIA_TYPE",
      "state-changing requests must send their body as Content-Type: application/json",
    );
}

const LOCAL = "http://toolgate.invalid";

/**
 * Where to send someone after sign-in: a path of this site, or /chat. Parsed as a URL, not checked as text, because
 * browsers read "/\evil.example" (and tabs or newlines inside it) as "//evil.example", another site.
 */
export function safeRedirectPath(next: unknown, fallback = "/chat"): string {
  if (typeof next !== "string" || !next.startsWith("/")) return fallback;
  try {
    const url = new URL(next, LOCAL);
    return url.origin === LOCAL && !url.pathname.startsWith("//") ? `${url.pathname}${url.search}` : fallback;
  } catch {
    return fallback;
  }
}
