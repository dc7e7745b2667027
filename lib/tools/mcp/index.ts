import "server-only";
// Plugin tools from MCP servers: connections, background discovery and health, registry sync, output caps and
// header secrets.
export {
  BACKOFF_BASE_MS,
  BACKOFF_MAX_MS,
  backoffDelay,
  McpConnection,
  STDERR_TAIL_CHARS,
  type McpTool,
} from "./connection";
export {
  jsonSchemaToZod,
  rootObjectSchema,
  validateJsonSchema,
  type JsonSchema,
  type SchemaProblem,
} from "./json-schema";
export { mcpServerOfToolName, mcpToolName, MCP_TOOL_PREFIX, sanitizeMcpToolPart } from "./naming";
export {
  capText,
  isMcpContentOutput,
  mcpOutputToModelContent,
  toToolOutput,
  TRUNCATION_MARKER,
  type McpContentOutput,
  type McpContentPart,
  type ModelContentPart,
} from "./output";
export { withUpstreamRelay, type UpstreamLog, type UpstreamRelay } from "./relay";
export {
  decryptEnv,
  decryptHeaders,
  encryptEnv,
  encryptHeaders,
  encryptMcpSecrets,
  maskMcpSecrets,
  SECRET_MASK,
} from "./secrets";
export {
  acceptMcpToolChange,
  closeMcpConnections,
  isServerInUse,
  listMcpServerStatus,
  mcpSupervisor,
  reconnectMcpServer,
  refreshMcpTools,
  syncMcpTools,
} from "./sync";
export type { McpServerState, McpServerStatus } from "./supervisor";
export { listPendingToolChanges, type PendingToolChange, type PinnedDefinition } from "./pins";
export {
  buildMcpToolDefinitions,
  configuredToolStubs,
  isDestructive,
  mcpApprovalReason,
  outputCapFor,
  requiresTasks,
  type DiscoveredTool,
  type McpToolCaller,
  type McpToolDefinition,
} from "./tool-definitions";
