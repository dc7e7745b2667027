import { authorizationServerMetadata } from "@/lib/oauth/server";
import { oauthJson, preflight } from "@/lib/oauth/http";

// RFC 8414 authorization server metadata for /mcp's OAuth, from PUBLIC_BASE_URL (never the Host header).
export const dynamic = "force-dynamic";

export const GET = () => oauthJson(authorizationServerMetadata(), 200, { "cache-control": "public, max-age=300" });
export const OPTIONS = preflight;
