// Shared vocabulary of the policy engine. Other domains (agent, tools, approvals, admin UI) import these
// from "@/lib/policy"; keep the names stable.
import type { z } from "zod";

export const TOOL_MODES = ["chat_safe", "coding"] as const;
export type ToolMode = (typeof TOOL_MODES)[number];

export const ROLES = ["member", "owner", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** Display/audit category only. Never an authorization source. */
export type ToolGroup = "code" | "memory" | "world" | "sessions" | "ui" | "web" | "runtime" | "plugin" | (string & {});

export type ToolPolicy = { allow?: string[]; alsoAllow?: string[]; deny?: string[] };

export type ToolExecuteOptions = {
  /** Provider/model call id of this tool call. */
  callId: string;
  abortSignal?: AbortSignal;
  /** Opaque per-call context supplied by the agent loop (user id, session id, workspace, limits...). */
  context?: unknown;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a registry holds tools of different input types; each tool's own zod schema types its input
export type ToolDefinition<Input = any, Output = unknown> = {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** Omitted means `code` (the most conservative category). */
  group?: ToolGroup;
  /** Omitted means no mode at all: fail-closed, the tool is unavailable everywhere. */
  allowedModes?: ToolMode[];
  ownerOnly?: boolean;
  /** MCP server id for plugin tools. */
  pluginId?: string;
  /** Every call needs an owner's approval, as if an askRules entry matched (e.g. destructive plugin tools). */
  requiresApproval?: boolean;
  /** Hints a plugin's server declared (MCP tool annotations). Untrusted: policy reads them only via requiresApproval. */
  annotations?: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
    title?: string;
  };
  execute: (input: Input, options: ToolExecuteOptions) => Promise<Output> | Output;
};

/** What the policy engine needs to know of a tool (no execute, no zod). */
export type ToolMeta = Pick<
  ToolDefinition,
  "name" | "group" | "allowedModes" | "ownerOnly" | "pluginId" | "requiresApproval"
>;

export const DENIAL_CODES = [
  "MODE_DENIED",
  "POLICY_DENIED",
  "TOOL_NOT_AVAILABLE",
  "TOOL_NOT_FOUND",
  "APPROVAL_DENIED",
  "APPROVAL_EXPIRED",
  "APPROVAL_PENDING",
  "INVALID_ARGUMENTS",
  "LIMIT_EXCEEDED",
] as const;
export type DenialCode = (typeof DENIAL_CODES)[number];

/** Who is asking, where, and how: everything the layers look at. */
export type PolicyContext = {
  roles: Role[];
  /** True only for a signed-in owner; never true by default. */
  senderIsOwner: boolean;
  mode: ToolMode;
  provider?: string;
  model?: string;
  agentId?: string;
  teamIds?: string[];
  senderId?: string;
  sandboxed?: boolean;
  /** 0 for a top-level run; 1 for a child spawned by it, ... */
  subagentDepth?: number;
};

/** The layers of the effective policy, in the fixed order they run. Each can only remove tools. */
export const POLICY_LAYERS = [
  "mode",
  "owner_only",
  "profile",
  "provider_profile",
  "global",
  "global_provider",
  "agent",
  "agent_provider",
  "group",
  "sandbox",
  "subagent",
  "system",
] as const;
export type LayerId = (typeof POLICY_LAYERS)[number];

export type PolicyWarningCode =
  | "unknown_entry"
  | "plugin_only_allowlist"
  | "unknown_profile"
  | "unknown_agent"
  | "mode_override_loosens"
  | "mode_not_granted"
  | "invalid_mode"
  | "duplicate_tool"
  | "tool_registered_with_default_modes";

export type PolicyWarning = {
  code: PolicyWarningCode;
  message: string;
  layer?: LayerId;
  /** Where in the document or pipeline (e.g. "tools.allow", "teams.ops"). */
  source?: string;
  entries?: string[];
};

export type ChainEntry = {
  layer: LayerId;
  /** skipped = the layer does not apply to this context (nothing configured, not sandboxed, ...). */
  outcome: "kept" | "removed" | "skipped";
  rule?: string;
  source?: string;
};

export type PolicyErrorCode = "MODE_DENIED" | "POLICY_DENIED" | "TOOL_NOT_AVAILABLE" | "TOOL_NOT_FOUND";

export type ToolDecision = {
  /** Normalized tool name. */
  name: string;
  allowed: boolean;
  /** ask = allowed, but an askRules pattern requires an owner's approval first. */
  effect: "allow" | "deny" | "ask";
  /** The first layer that removed the tool, "allowed", "not_found" for a name no tool has, or "parent" when a
   * subagent's parent run may not use it (lib/policy/parent-limit.ts). */
  layer: LayerId | "parent" | "allowed" | "not_found";
  rule?: string;
  /** Where the rule lives in the document (e.g. "teams.ops", "tools.byProvider.openai"). */
  source?: string;
  reason: string;
  errorCode?: PolicyErrorCode;
  /** Modes in which the tool is available at all (after overrides): lets a denial point at a reachable mode. */
  availableModes: readonly ToolMode[];
  /** For TOOL_NOT_AVAILABLE: the system capability that is switched off. */
  capability?: string;
  chain: readonly ChainEntry[];
};
