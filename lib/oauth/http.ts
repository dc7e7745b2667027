import "server-only";
// The OAuth endpoints' HTTP shape (RFC 6749 section 5.2): errors are {error, error_description} with 400 (401 for
// invalid_client, 429 with Retry-After past a limit), never a stack or a 500 body with internals; answers are
// never cached. These endpoints take no cookie, so any origin may call them (browser-based MCP clients do).
import {
  InvalidRequestError,
  OAuthError,
  ServerError,
  TooManyRequestsError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { isAppError } from "@/lib/errors";
import { readBodyText } from "@/lib/http/body";
import { publicErrorMessage } from "@/lib/public-error";

const FORM_MAX_BYTES = 16 * 1024;

export const CORS_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "content-type, authorization, mcp-protocol-version",
  "access-control-max-age": "600",
};

export function oauthJson(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "cache-control": "no-store", ...CORS_HEADERS, ...headers },
  });
}

function statusOf(error: OAuthError): number {
  if (error.errorCode === "invalid_client") return 401;
  if (error instanceof TooManyRequestsError) return 429;
  if (error instanceof ServerError) return 500;
  return 400;
}

export function oauthErrorResponse(error: unknown): Response {
  if (error instanceof OAuthError) {
    const retry = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    return oauthJson(error.toResponseObject(), statusOf(error), retry ? { "retry-after": String(retry) } : {});
  }
  if (isAppError(error) && error.status < 500) {
    const code = error.code === "RATE_LIMITED" ? "too_many_requests" : "invalid_request";
    return oauthJson({ error: code, error_description: error.message }, error.status, error.headers ?? {});
  }
  const { message } = publicErrorMessage(error, { event: "oauth_error" });
  return oauthJson({ error: "server_error", error_description: message }, 503, { "retry-after": "5" });
}

/** Runs an endpoint, answering every failure as an OAuth error. */
export function oauthRoute(fn: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    try {
      return await fn(request);
    } catch (error) {
      return oauthErrorResponse(error);
    }
  };
}

/** application/x-www-form-urlencoded parameters, capped; a parameter given twice is refused (RFC 6749 section 3.1). */
export async function readFormBody(request: Request): Promise<Record<string, string>> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded")
    throw new InvalidRequestError("the body must be application/x-www-form-urlencoded");
  const params = new URLSearchParams(await readBodyText(request, FORM_MAX_BYTES));
  const out: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key in out) throw new InvalidRequestError(`${key.slice(0, 50)} is given more than once`);
    out[key] = value;
  }
  return out;
}

export const preflight = () => new Response(null, { status: 204, headers: CORS_HEADERS });
