// The address this app is reached at, from configuration only (PUBLIC_BASE_URL): a Host header is the client's
// claim, and a resource or issuer URL taken from it would let a request name any origin. Without the setting,
// the local address the server listens on.
import { loadConfig } from "@/lib/config";

export function publicBaseUrl(): string {
  const c = loadConfig();
  return (c.PUBLIC_BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, "");
}

export const MCP_PATH = "/mcp";
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";

/** RFC 9728 protected resource metadata for /mcp: this app is its own authorization server (lib/oauth). */
export function protectedResourceMetadata() {
  const base = publicBaseUrl();
  return {
    resource: `${base}${MCP_PATH}`,
    authorization_servers: [base],
    scopes_supported: ["mcp"],
    bearer_methods_supported: ["header"],
    resource_name: "Toolgate MCP gateway",
    resource_documentation: `${base}/settings`,
  };
}

export function wwwAuthenticate(error?: "invalid_token"): string {
  const base = publicBaseUrl();
  return `Bearer resource_metadata="${base}${RESOURCE_METADATA_PATH}"${error ? `, error="${error}"` : ""}`;
}
