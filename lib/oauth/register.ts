import "server-only";
// The registration endpoint's request handling: the caller's address spends the credential write quota (shared
// with consents) before the body is read; then the body is parsed as JSON and registered (lib/oauth/server.ts).
import { InvalidClientMetadataError, InvalidRequestError } from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { clientAddress } from "@/lib/auth/throttle";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { isAppError } from "@/lib/errors";
import { BODY_LIMITS, readJsonBody } from "@/lib/http/body";
import { isJsonContentType } from "@/lib/http/request-guard";
import { registerClient } from "./server";

export async function registerOAuthClient(request: Request) {
  await consumeWriteQuota("oauth-writes", `address:${clientAddress(request.headers)}`);
  if (!isJsonContentType(request.headers)) throw new InvalidRequestError("the body must be application/json");
  let body: unknown;
  try {
    body = await readJsonBody(request, BODY_LIMITS.small);
  } catch (error) {
    if (isAppError(error) && error.code === "PAYLOAD_TOO_LARGE") throw error;
    throw new InvalidClientMetadataError(isAppError(error) ? error.message : "the body is not valid JSON");
  }
  return registerClient(body);
}
