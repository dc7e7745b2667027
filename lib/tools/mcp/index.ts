import "server-only";
// Plugin tools from MCP servers: connections, discovery, registry sync and header secrets.
export { BACKOFF_BASE_MS, BACKOFF_MAX_MS, backoffDelay, McpConnection, type McpTool } from "./connection";
export { jsonSchemaToZod, rootObjectSchema, validateJsonSchema, type JsonSchema, type SchemaProblem } from "./json-schema";
export { mcpServerOfToolName, mcpToolName, MCP_TOOL_PREFIX, sanitizeMcpToolPart } from "./naming";
export { decryptHeaders, encryptHeaders, encryptMcpHeaders } from "./secrets";
export { closeMcpConnections, isServerInUse, syncMcpTools } from "./sync";
export {
  buildMcpToolDefinitions,
  configuredToolStubs,
  isDestructive,
  toToolOutput,
  type DiscoveredTool,
  type McpToolCaller,
  type McpToolDefinition,
} from "./tool-definitions";
