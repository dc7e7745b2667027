import { registerOAuthClient } from "@/lib/oauth/register";
import { oauthJson, oauthRoute, preflight } from "@/lib/oauth/http";

// RFC 7591 dynamic client registration (public clients), limited per address and by a global hourly ceiling.
export const dynamic = "force-dynamic";

export const POST = oauthRoute(async (request) => oauthJson(await registerOAuthClient(request), 201));
export const OPTIONS = preflight;
