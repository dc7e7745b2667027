// The one policy document an admin edits: every layer, profiles, overrides, grants, system and exec settings.
import { z } from "zod";
import { AgentUsableBySchema } from "./agent-access";
import { ExecSettingsSchema } from "./exec-approvals";
import { McpServersSchema } from "./mcp-servers";
import { RoutingSchema } from "./routing";
import { BUILTIN_PROFILE_IDS, isKnownProfile } from "./names";
import { SystemToolSettingsPatchSchema, SystemToolSettingsSchema } from "./system-settings";
import { TOOL_MODES, type ToolMode } from "./types";

const toolList = z.array(z.string().trim().min(1, "an entry cannot be empty"));
const idList = z.array(z.string().trim().min(1));
const modeList = z.array(z.enum(TOOL_MODES));

export const ToolPolicySchema = z
  .object({ allow: toolList.optional(), alsoAllow: toolList.optional(), deny: toolList.optional() })
  .strict();

/** A scope that may also narrow by a profile (tools.byProvider entries, agents, ...). */
export const ScopedToolPolicySchema = ToolPolicySchema.extend({
  profile: z.string().trim().min(1).optional(),
}).strict();

/** Keys are a provider ("openai") or provider/model ("openai/gpt-4o"); the more specific key wins. */
export const ProviderPoliciesSchema = z.record(z.string().trim().min(1), ScopedToolPolicySchema);

export const ToolsSectionSchema = ScopedToolPolicySchema.extend({
  byProvider: ProviderPoliciesSchema.optional(),
}).strict();

export const AgentConfigSchema = z
  .object({
    name: z.string().trim().min(1),
    persona: z.string().optional(),
    model: z.string().trim().min(1).optional(),
    tools: ToolsSectionSchema.prefault({}),
    /** Agent-side system settings: can only tighten the system ones. */
    system: SystemToolSettingsPatchSchema.optional(),
    /** Who may start a chat as this agent (lib/policy/agent-access.ts); absent: admins only. */
    usableBy: AgentUsableBySchema.optional(),
    /** Prompts offered as clickable starters in an empty chat with this agent. */
    starters: z.array(z.string().trim().min(1).max(300)).max(8).optional(),
  })
  .strict();

export const SandboxConfigSchema = z
  .object({
    /** Combined with DEFAULT_SANDBOX_TOOL_POLICY by resolveSandboxToolPolicy (layer-defaults.ts). */
    tools: ToolPolicySchema.prefault({}),
    /** Runs of these agents, teams or users are sandboxed even when the caller does not say so. */
    sandboxed: z
      .object({ agents: idList.default(() => []), teams: idList.default(() => []), users: idList.default(() => []) })
      .strict()
      .prefault({}),
  })
  .strict();

export const SubagentsConfigSchema = z
  .object({ maxSpawnDepth: z.number().int().min(0).max(10).default(1), tools: ToolPolicySchema.prefault({}) })
  .strict();

export const ModeGrantsSchema = z
  .object({
    roles: z
      .object({
        member: modeList.default((): ToolMode[] => ["chat_safe"]),
        owner: modeList.default((): ToolMode[] => ["chat_safe", "coding"]),
        admin: modeList.default((): ToolMode[] => ["chat_safe", "coding"]),
      })
      .strict()
      .prefault({}),
    teams: z.record(z.string().trim().min(1), modeList).default(() => ({})),
    users: z.record(z.string().trim().min(1), modeList).default(() => ({})),
  })
  .strict();

export const PolicyDocumentSchema = z
  .object({
    // 2: exec.security defaults to "sandbox". Version 1 documents are upgraded on parse (upgradePolicyInput).
    version: z.literal(2).default(2),
    tools: ToolsSectionSchema.prefault({}),
    profiles: z.record(z.string().trim().min(1), ToolPolicySchema).default(() => ({})),
    agents: z.record(z.string().trim().min(1), AgentConfigSchema).default(() => ({})),
    teams: z.record(z.string().trim().min(1), ToolPolicySchema).default(() => ({})),
    senders: z.record(z.string().trim().min(1), ToolPolicySchema).default(() => ({})),
    sandbox: SandboxConfigSchema.prefault({}),
    subagents: SubagentsConfigSchema.prefault({}),
    /** Tool name → modes. Intersected with the tool's own allowedModes, so it can only tighten. */
    modeOverrides: z.record(z.string().trim().min(1), modeList).default(() => ({})),
    system: SystemToolSettingsSchema.prefault({}),
    exec: ExecSettingsSchema.prefault({}),
    /** Tool patterns (names, groups, wildcards) whose every call needs an owner's approval. */
    askRules: toolList.default(() => []),
    modeGrants: ModeGrantsSchema.prefault({}),
    /** MCP servers whose tools join the registry as plugin tools (still subject to system.mcp). */
    mcpServers: McpServersSchema.default(() => []),
    /** Who is asked to approve what (issue 31); an old document without it routes nothing. */
    routing: RoutingSchema.prefault({}),
  })
  .strict()
  .superRefine((doc, ctx) => {
    for (const id of Object.keys(doc.profiles)) {
      if ((BUILTIN_PROFILE_IDS as readonly string[]).includes(id)) {
        ctx.addIssue({
          code: "custom",
          path: ["profiles", id],
          message: `"${id}" is a built-in profile and cannot be redefined`,
        });
      }
    }
    const checkProfile = (profile: string | undefined, path: (string | number)[]) => {
      if (profile !== undefined && !isKnownProfile(profile, doc.profiles)) {
        ctx.addIssue({ code: "custom", path, message: `unknown profile "${profile}"` });
      }
    };
    const checkScope = (scope: z.output<typeof ToolsSectionSchema>, path: string[]) => {
      checkProfile(scope.profile, [...path, "profile"]);
      for (const [key, entry] of Object.entries(scope.byProvider ?? {}))
        checkProfile(entry.profile, [...path, "byProvider", key, "profile"]);
    };
    checkScope(doc.tools, ["tools"]);
    for (const [id, agent] of Object.entries(doc.agents)) checkScope(agent.tools, ["agents", id, "tools"]);
  });

export type PolicyDocument = z.output<typeof PolicyDocumentSchema>;
export type PolicyDocumentInput = z.input<typeof PolicyDocumentSchema>;
export type ToolPolicyConfig = z.output<typeof ToolPolicySchema>;
export type ScopedToolPolicy = z.output<typeof ScopedToolPolicySchema>;
export type AgentConfig = z.output<typeof AgentConfigSchema>;

export const DEFAULT_POLICY_DOCUMENT: PolicyDocument = deepFreeze(PolicyDocumentSchema.parse({}));

export type PolicyDocumentIssue = { path: string; message: string };
export type ParsePolicyDocumentResult =
  { ok: true; document: PolicyDocument } | { ok: false; issues: PolicyDocumentIssue[] };

export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  return path.map((part) => String(part)).join(".") || "(root)";
}

/**
 * Where the input has an own "__proto__" key (JSON.parse makes one). A record parsed from it would assign that key,
 * which sets the prototype instead: the entry would vanish, and a deny for a team or sender of that name with it.
 */
function protoKeyPaths(value: unknown, path: PropertyKey[] = [], found: PropertyKey[][] = []): PropertyKey[][] {
  if (!value || typeof value !== "object" || path.length > 32) return found;
  if (Object.prototype.hasOwnProperty.call(value, "__proto__")) found.push([...path, "__proto__"]);
  for (const [key, inner] of Object.entries(value)) protoKeyPaths(inner, [...path, key], found);
  return found;
}

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * A document written before version 2 (no version, or version 1) meant exec.security "allowlist" where it said
 * nothing: it keeps that mode, written out, so an upgrade never switches a stored policy to sandbox mode (an admin's
 * save does, diffed and audited). Rollback, replay and the history diff all parse stored versions through here.
 */
export function upgradePolicyInput(input: unknown): unknown {
  if (!isPlainRecord(input) || (input.version !== undefined && input.version !== 1)) return input;
  const exec = input.exec ?? {};
  // Anything but an object is left for the schema to report.
  if (!isPlainRecord(exec)) return { ...input, version: 2 };
  return { ...input, version: 2, exec: { ...exec, security: exec.security ?? "allowlist" } };
}

export function parsePolicyDocument(input: unknown): ParsePolicyDocumentResult {
  const proto = protoKeyPaths(input);
  if (proto.length)
    return {
      ok: false,
      issues: proto.map((path) => ({
        path: formatIssuePath(path),
        message: '"__proto__" cannot be a key here: rename it',
      })),
    };
  const result = PolicyDocumentSchema.safeParse(upgradePolicyInput(input ?? {}));
  if (result.success) return { ok: true, document: result.data };
  const issues = result.error.issues.map((issue) => {
    // Unknown keys are reported on the parent object; pointing at the key itself is what an editor needs.
    const keys = issue.code === "unrecognized_keys" ? issue.keys : [];
    const path = keys.length === 1 ? [...issue.path, keys[0] as string] : issue.path;
    return { path: formatIssuePath(path), message: issue.message };
  });
  return { ok: false, issues };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
