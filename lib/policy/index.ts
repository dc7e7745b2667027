// Public surface of the policy engine. Pure: plain data in, decisions with reasons out.
export * from "./types";
export {
  BUILTIN_PROFILE_IDS,
  buildPluginToolGroups,
  CORE_TOOL_NAMES,
  expandToolGroupEntry,
  expandToolGroups,
  isKnownProfile,
  isOwnerOnlyTool,
  normalizeToolName,
  normalizeToolList,
  resolveToolProfilePolicy,
  TOOL_GROUPS,
  TOOL_NAME_ALIASES,
  TOOL_PROFILES,
  OWNER_ONLY_TOOL_NAMES,
  type BuiltinProfileId,
  type PluginToolGroups,
} from "./names";
export {
  analyzeAllowlist,
  APPLY_PATCH_PAIRED_TOOL,
  applyOwnerOnlyToolPolicy,
  compileToolPolicy,
  evaluateCompiledPolicy,
  filterToolsByPolicy,
  isToolAllowedByPolicies,
  isToolAllowedByPolicyName,
  makeToolPolicyMatcher,
  type AllowlistAnalysis,
  type CompiledToolPolicy,
  type PolicyVerdict,
} from "./matching";
export { computeEffectiveModes, isToolMode } from "./modes";
export {
  applyToolPolicyPipeline,
  type PipelineRemoval,
  type ToolPolicyPipelineResult,
  type ToolPolicyPipelineStep,
} from "./pipeline";
export { ToolRegistry, type AllowedToolList, type RegistryLogger, type ToolSchema } from "./registry";
export {
  cleanSchemaForGemini,
  normalizeToolParameters,
  schemaProfileFor,
  type NormalizeOptions,
  type SchemaProfile,
} from "./schema-normalize";
export {
  applySystemToolSettingsPatch,
  capabilityOfTool,
  DEFAULT_MAX_READ_BYTES,
  DEFAULT_MAX_WRITE_BYTES,
  DEFAULT_SYSTEM_TOOL_SETTINGS,
  formatByteSize,
  mergeToolPolicies,
  normalizeSystemToolSettings,
  parseByteSize,
  SystemToolSettingsPatchSchema,
  SystemToolSettingsSchema,
  type SystemCapability,
  type SystemToolSettings,
  type SystemToolSettingsInput,
  type SystemToolSettingsPatch,
} from "./system-settings";
export {
  APPROVAL_DECISIONS,
  decideExec,
  DEFAULT_AUDIT_REDACTIONS,
  DEFAULT_SAFE_BINS,
  DEFAULT_EXEC_SETTINGS,
  EXEC_ASK_MODES,
  EXEC_FALLBACK_LEVELS,
  EXEC_SECURITY_LEVELS,
  ExecSettingsSchema,
  isApprovalDecision,
  normalizeSafeBins,
  requiresExecApproval,
  resolveAskFallback,
  RESOLVED_ENTRY_GRACE_MS,
  type ApprovalDecision,
  type ExecAsk,
  type ExecEscalations,
  type ExecFallback,
  type ExecSecurity,
  type ExecSettings,
  type ExecVerdict,
  type ShellAnalysis,
  type ShellOperator,
  type ShellSegment,
} from "./exec-approvals";
export {
  applyHookParams,
  isBlockingHookResult,
  MAX_TRACKED_ADJUSTED_PARAMS,
  mergeBeforeToolCallHookResults,
  type BeforeToolCallHookResult,
} from "./hooks";
export {
  AgentConfigSchema,
  DEFAULT_POLICY_DOCUMENT,
  ModeGrantsSchema,
  parsePolicyDocument,
  upgradePolicyInput,
  PolicyDocumentSchema,
  ToolPolicySchema,
  type AgentConfig,
  type ParsePolicyDocumentResult,
  type PolicyDocument,
  type PolicyDocumentInput,
  type PolicyDocumentIssue,
} from "./document";
export { LAYER_LABELS } from "./layer-units";
export {
  DEFAULT_SANDBOX_TOOL_POLICY,
  resolveSandboxToolPolicy,
  SUBAGENT_TOOL_DENY_ALWAYS,
  SUBAGENT_TOOL_DENY_LEAF,
} from "./layer-defaults";
export {
  DEFAULT_MCP_TIMEOUT_MS,
  isMcpServerUsable,
  MCP_SERVER_ID_PATTERN,
  MCP_SERVER_ID_RULE,
  McpServerConfigSchema,
  McpServersSchema,
  type McpServerConfig,
  type McpServerConfigInput,
  type McpTransportConfig,
} from "./mcp-servers";
export { ASK_BY_TOOL_RULE } from "./compiled-policy";
export { resolveProviderKey } from "./provider-choice";
export { CompiledPolicy, type EffectiveToolPolicy, type PolicyConfig } from "./effective-policy";
export { compilePolicy, resolveEffectiveToolPolicy } from "./resolve";
export { errorCodeForLayer, isSandboxed, resolveGrantedModes } from "./policy-context";
export { PARENT_RULE, restrictToParent } from "./parent-limit";
export { buildDenial, type ToolDenial } from "./denial";
export {
  agentAccessReason,
  agentsUsableBy,
  AgentUsableBySchema,
  isAgentUsableBy,
  type AgentUsableBy,
  type AgentUser,
} from "./agent-access";
export {
  matchRoutingRule,
  routingPlan,
  ROUTING_MAX_MINUTES,
  RoutingSchema,
  type Routing,
  type RoutingRule,
  type RoutingSubject,
} from "./routing";
