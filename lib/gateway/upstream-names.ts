// How the gateway names what upstream MCP servers offer besides tools (docs/mcp-gateway.md), namespaced by server
// id as tools are:
//   prompt and resource names   mcp__<server>__<upstream name>     (the upstream name unchanged)
//   resource URIs and templates toolgate://<server>/<upstream uri>  (the upstream URI unchanged after the prefix)
// so the server is read back from the name alone, and two servers' equal URIs or names never collide. Resource
// links and embedded resources in tool results and prompts get the same URIs, so a client can read them via /mcp.
import type { ContentBlock } from "@modelcontextprotocol/sdk/types.js";
import { MCP_TOOL_PREFIX } from "@/lib/tools/mcp/naming";

export const UPSTREAM_URI_PREFIX = "toolgate://";

export const namespacedName = (serverId: string, name: string) => `${MCP_TOOL_PREFIX}${serverId}__${name}`;
export const namespacedUri = (serverId: string, uri: string) => `${UPSTREAM_URI_PREFIX}${serverId}/${uri}`;

/** Splits `mcp__<server>__<name>` (server ids never hold "__", so the first one after the prefix separates). */
export function splitName(name: string): { serverId: string; rest: string } | null {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return null;
  const body = name.slice(MCP_TOOL_PREFIX.length);
  const end = body.indexOf("__");
  return end > 0 && end + 2 < body.length ? { serverId: body.slice(0, end), rest: body.slice(end + 2) } : null;
}

export function splitUri(uri: string): { serverId: string; rest: string } | null {
  if (!uri.startsWith(UPSTREAM_URI_PREFIX)) return null;
  const body = uri.slice(UPSTREAM_URI_PREFIX.length);
  const end = body.indexOf("/");
  return end > 0 && end + 1 < body.length ? { serverId: body.slice(0, end), rest: body.slice(end + 1) } : null;
}

/** A content block's resource URIs namespaced, so what a prompt or tool hands out can be read through /mcp. */
export function namespaceContent<T extends ContentBlock>(serverId: string, block: T): T {
  if (block.type === "resource_link") return { ...block, uri: namespacedUri(serverId, block.uri) };
  if (block.type === "resource")
    return { ...block, resource: { ...block.resource, uri: namespacedUri(serverId, block.resource.uri) } };
  return block;
}
