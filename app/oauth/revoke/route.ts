import { revokeOAuthTokenRequest } from "@/lib/oauth/server";
import { oauthJson, oauthRoute, preflight, readFormBody } from "@/lib/oauth/http";

// RFC 7009 token revocation: 200 whether or not the token existed (it tells a guesser nothing).
export const dynamic = "force-dynamic";

export const POST = oauthRoute(async (request) => {
  await revokeOAuthTokenRequest(await readFormBody(request));
  return oauthJson({});
});
export const OPTIONS = preflight;
