// Public surface of the policy engine. Pure: plain data in, decisions with reasons out.
export * from "./types";
export {
  BUILTIN_PROFILE_IDS,
  buildPluginToolGroups,
  CORE_TOOL_NAMES,
  DEFAULT_SUBAGENT_TOOL_DENY,
  expandToolGroups,
  isKnownProfile,
  normalizeToolName,
  normalizeToolList,
  resolveToolProfilePolicy,
  SPAWN_TOOLS,
  TOOL_GROUPS,
  TOOL_NAME_ALIASES,
  TOOL_PROFILES,
  type BuiltinProfileId,
  type PluginToolGroups,
} from "./names";
export {
  applyOwnerOnlyToolPolicy,
  compileToolPolicy,
  evaluateCompiledPolicy,
  filterToolsByPolicy,
  isToolAllowedByPolicies,
  isToolAllowedByPolicyName,
  makeToolPolicyMatcher,
  type CompiledToolPolicy,
  type PolicyVerdict,
} from "./matching";
export { computeEffectiveModes, isToolMode } from "./modes";
export { applyToolPolicyPipeline, type PipelineRemoval, type ToolPolicyPipelineResult, type ToolPolicyPipelineStep } from "./pipeline";
export { ToolRegistry, type AllowedToolList, type RegistryLogger, type ToolSchema } from "./registry";
export { cleanSchemaForGemini, normalizeToolParameters } from "./schema-normalize";
export {
  applySystemToolSettingsPatch,
  capabilityOfTool,
  DEFAULT_MAX_READ_BYTES,
  DEFAULT_MAX_WRITE_BYTES,
  DEFAULT_SYSTEM_TOOL_SETTINGS,
  mergeToolPolicies,
  normalizeSystemToolSettings,
  SystemToolSettingsPatchSchema,
  SystemToolSettingsSchema,
  type SystemCapability,
  type SystemToolSettings,
  type SystemToolSettingsInput,
  type SystemToolSettingsPatch,
} from "./system-settings";
export { analyzeShellCommand, type ShellAnalysis, type ShellOperator, type ShellSegment } from "./shell-analysis";
export {
  APPROVAL_DECISIONS,
  applyHookParams,
  decideExec,
  DEFAULT_EXEC_SETTINGS,
  DEFAULT_SAFE_BINS,
  evaluateExecAllowlist,
  EXEC_ASK_MODES,
  EXEC_SECURITY_LEVELS,
  ExecSettingsSchema,
  globToRegExp,
  isApprovalDecision,
  isSafeBinUsage,
  MAX_TRACKED_ADJUSTED_PARAMS,
  matchesPathGlob,
  mergeBeforeToolCallHookResults,
  requiresExecApproval,
  resolveAskFallback,
  RESOLVED_ENTRY_GRACE_MS,
  type ApprovalDecision,
  type BeforeToolCallHookResult,
  type ExecAllowlistResult,
  type ExecAsk,
  type ExecSecurity,
  type ExecSettings,
  type ExecVerdict,
  type SegmentAllowlistResult,
} from "./exec-approvals";
export {
  AgentConfigSchema,
  DEFAULT_POLICY_DOCUMENT,
  DEFAULT_SANDBOX_TOOL_POLICY,
  ModeGrantsSchema,
  parsePolicyDocument,
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
  DEFAULT_MCP_TIMEOUT_MS,
  MCP_SERVER_ID_PATTERN,
  McpServerConfigSchema,
  McpServersSchema,
  type McpServerConfig,
  type McpServerConfigInput,
  type McpTransportConfig,
} from "./mcp-servers";
export { ASK_BY_TOOL_RULE, resolveProviderKey } from "./compiled-policy";
export { CompiledPolicy, type EffectiveToolPolicy, type PolicyConfig } from "./effective-policy";
export { compilePolicy, resolveEffectiveToolPolicy } from "./resolve";
export { errorCodeForLayer, isSandboxed, resolveGrantedModes } from "./policy-context";
export { PARENT_RULE, restrictToParent } from "./parent-limit";
export { buildDenial, type ToolDenial } from "./denial";
