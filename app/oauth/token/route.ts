import { exchangeToken } from "@/lib/oauth/server";
import { oauthJson, oauthRoute, preflight, readFormBody } from "@/lib/oauth/http";

// OAuth token endpoint: authorization_code (PKCE S256) and refresh_token (rotating), public clients.
export const dynamic = "force-dynamic";

export const POST = oauthRoute(async (request) => oauthJson(await exchangeToken(await readFormBody(request))));
export const OPTIONS = preflight;
