// Plugin tool names: `mcp__<server>__<tool>`. Providers accept ^[a-zA-Z0-9_-]{1,64}$ and the registry lower-cases,
// so the server's tool name is lower-cased, odd characters become "_", and long names are cut with a hash suffix
// (cutting alone could make two tools collide silently).
import { createHash } from "node:crypto";

export const MCP_TOOL_PREFIX = "mcp__";
const MAX_TOOL_NAME_LENGTH = 64;

export function sanitizeMcpToolPart(name: string): string {
  const cleaned = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "_");
  return cleaned || "_";
}

export function mcpToolName(serverId: string, toolName: string): string {
  const full = `${MCP_TOOL_PREFIX}${sanitizeMcpToolPart(serverId)}__${sanitizeMcpToolPart(toolName)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = createHash("sha256").update(toolName).digest("hex").slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
}

/** The server id of a plugin tool name, or undefined for any other name. */
export function mcpServerOfToolName(name: string): string | undefined {
  if (!name.startsWith(MCP_TOOL_PREFIX)) return undefined;
  const rest = name.slice(MCP_TOOL_PREFIX.length);
  const end = rest.indexOf("__");
  return end > 0 ? rest.slice(0, end) : undefined;
}
