// Compiles a policy document against a tool list once; per-context units are built lazily and memoized, so a
// resolution only picks units and walks precomputed arrays.
import type { PolicyDocument, ScopedToolPolicy } from "./document";
import { compileEntries, findMatchingEntry, type CompiledEntry } from "./matching";
import { computeEffectiveModes, findLoosenedModes } from "./modes";
import { resolveSandboxToolPolicy, SUBAGENT_TOOL_DENY_ALWAYS, SUBAGENT_TOOL_DENY_LEAF } from "./layer-defaults";
import { buildPluginToolGroups, CORE_TOOL_NAMES, isOwnerOnlyTool, normalizeToolName } from "./names";
import { hasOwnKey, ownValue } from "./own";
import { ProviderChooser, type ProviderChoice } from "./provider-choice";
import {
  compact,
  makeUnit,
  policyUnit,
  profileUnit,
  type LayerUnit,
  type PolicyTool,
  type UnitContext,
} from "./layer-units";
import { capabilityOfTool, mergeToolPolicies, systemSettingsRule, type SystemToolSettings } from "./system-settings";
import { type PolicyWarning, type ToolMeta, type ToolMode } from "./types";

function memo<K, V>(map: Map<K, V>, key: K, build: () => V): V {
  let value = map.get(key);
  if (value === undefined && !map.has(key)) {
    value = build();
    map.set(key, value);
  }
  return value as V;
}

// Tools declaring the same modes share one frozen array (thousands of plugin tools declare the same two).
const modeArrays = new Map<string, readonly ToolMode[]>();
function sharedModes(declared: readonly ToolMode[] | undefined): readonly ToolMode[] {
  const key = declared ? declared.join(",") : "";
  let modes = modeArrays.get(key);
  if (!modes) {
    modes = Object.freeze(computeEffectiveModes(declared));
    // Keys are joined mode names, a handful in all; the bound only guards against a caller inventing many.
    if (modeArrays.size < 64) modeArrays.set(key, modes);
  }
  return modes;
}

/** The ask rule reported for a tool whose own `requiresApproval` flag asks (no askRules entry matched). */
export const ASK_BY_TOOL_RULE = "ask: requiresApproval";

export class PolicyCompilation {
  readonly tools: readonly PolicyTool[];
  readonly indexByName: ReadonlyMap<string, number>;
  readonly staticWarnings: PolicyWarning[] = [];
  readonly ctx: UnitContext;
  private readonly askEntries: CompiledEntry[];
  private readonly units = new Map<string, LayerUnit | undefined>();
  private readonly limitsByAgent = new Map<string, SystemToolSettings>();
  private readonly providers: ProviderChooser;

  constructor(
    readonly document: PolicyDocument,
    toolMetas: readonly ToolMeta[],
  ) {
    const overrides = new Map(
      Object.entries(document.modeOverrides).map(([name, modes]) => [normalizeToolName(name), modes]),
    );
    const tools: PolicyTool[] = [];
    const indexByName = new Map<string, number>();
    for (const meta of toolMetas) {
      const name = normalizeToolName(meta.name);
      if (indexByName.has(name)) {
        this.staticWarnings.push({
          code: "duplicate_tool",
          entries: [name],
          message: `Tool "${name}" is listed twice; the first one counts`,
        });
        continue;
      }
      const override = overrides.get(name);
      const loosened = override ? findLoosenedModes(meta.allowedModes, override) : [];
      if (loosened.length > 0) {
        this.staticWarnings.push({
          code: "mode_override_loosens",
          layer: "mode",
          source: `modeOverrides.${name}`,
          entries: loosened,
          message: `modeOverrides.${name} names ${loosened.join(", ")}, which the tool does not declare; ignored (overrides only tighten)`,
        });
      }
      indexByName.set(name, tools.length);
      tools.push({
        name,
        ...(meta.pluginId ? { pluginId: meta.pluginId.trim().toLowerCase() } : {}),
        ownerOnly: isOwnerOnlyTool({ name, ownerOnly: meta.ownerOnly }),
        requiresApproval: meta.requiresApproval === true,
        declaredModes: meta.allowedModes,
        effectiveModes: override
          ? Object.freeze(computeEffectiveModes(meta.allowedModes, override))
          : sharedModes(meta.allowedModes),
      });
    }
    for (const name of overrides.keys()) {
      if (!indexByName.has(name)) {
        this.staticWarnings.push({
          code: "unknown_entry",
          layer: "mode",
          source: `modeOverrides.${name}`,
          entries: [name],
          message: `modeOverrides names unknown tool "${name}"`,
        });
      }
    }
    this.tools = tools;
    this.indexByName = indexByName;
    const pluginGroups = buildPluginToolGroups(tools);
    const knownNames = new Set([...CORE_TOOL_NAMES, ...indexByName.keys()]);
    const coreNames = new Set([...CORE_TOOL_NAMES, ...tools.filter((tool) => !tool.pluginId).map((tool) => tool.name)]);
    this.ctx = { tools, pluginGroups, knownNames, coreNames };
    this.askEntries = compileEntries(document.askRules, pluginGroups);
    this.providers = new ProviderChooser(document);
  }

  /** The ask rule of tool i, looked up when its decision is first built (most tools' decisions never are). */
  askRuleAt(index: number): string | undefined {
    const tool = this.tools[index]!;
    const hit = findMatchingEntry(this.askEntries, tool.name);
    if (hit) return `ask: ${hit.entry}`;
    // The tool's own flag (e.g. a destructive MCP tool) asks exactly like a matching askRules entry would.
    return tool.requiresApproval ? ASK_BY_TOOL_RULE : undefined;
  }

  private unit(key: string, build: () => LayerUnit | undefined): LayerUnit | undefined {
    return memo(this.units, key, build);
  }

  modeUnit(mode: ToolMode): LayerUnit {
    return this.unit(`mode:${mode}`, () =>
      makeUnit(
        this.ctx,
        "mode",
        "allowedModes",
        (tool) => {
          if (tool.effectiveModes.includes(mode)) return undefined;
          const declaredHere = tool.declaredModes?.includes(mode) === true;
          const rule = declaredHere
            ? `modeOverrides.${tool.name}: [${tool.effectiveModes.join(", ")}]`
            : `allowedModes: [${tool.effectiveModes.join(", ") || "none"}]`;
          const where =
            tool.effectiveModes.length > 0 ? `only in ${tool.effectiveModes.join(", ")}` : "in no mode (fail closed)";
          return { rule, reason: `${tool.name} is not allowed in ${mode} mode; it is available ${where}.` };
        },
        [],
        (tool) => !tool.effectiveModes.includes(mode),
      ),
    ) as LayerUnit;
  }

  ownerOnlyUnit(): LayerUnit {
    return this.unit("owner", () =>
      makeUnit(this.ctx, "owner_only", "ownerOnly", (tool) =>
        tool.ownerOnly ? { rule: "ownerOnly: true", reason: `${tool.name} is available to owners only.` } : undefined,
      ),
    ) as LayerUnit;
  }

  profileUnits(): LayerUnit[] {
    const { tools, profiles } = this.document;
    return compact([
      this.unit("profile", () =>
        profileUnit(this.ctx, "profile", "tools.profile", tools.profile, tools.alsoAllow, profiles),
      ),
    ]);
  }

  providerChoice(agentId: string | undefined, provider?: string, model?: string): ProviderChoice {
    return this.providers.choose(agentId, provider, model);
  }

  providerProfileUnits({ toolsKey }: ProviderChoice): LayerUnit[] {
    if (toolsKey === undefined) return [];
    const entry = ownValue(this.document.tools.byProvider, toolsKey) as ScopedToolPolicy;
    const source = `tools.byProvider.${toolsKey}.profile`;
    return compact([
      this.unit(`pp:${toolsKey}`, () =>
        profileUnit(this.ctx, "provider_profile", source, entry.profile, entry.alsoAllow, this.document.profiles),
      ),
    ]);
  }

  globalUnits(): LayerUnit[] {
    return compact([this.unit("global", () => policyUnit(this.ctx, "global", "tools", this.document.tools))]);
  }

  globalProviderUnits({ toolsKey, applyPatchListed }: ProviderChoice): LayerUnit[] {
    const entry =
      toolsKey === undefined ? undefined : (ownValue(this.document.tools.byProvider, toolsKey) as ScopedToolPolicy);
    const entryUnit =
      entry &&
      this.unit(`gp:${toolsKey}`, () => policyUnit(this.ctx, "global_provider", `tools.byProvider.${toolsKey}`, entry));
    return compact([entryUnit, applyPatchListed ? undefined : this.applyPatchUnit()]);
  }

  /** apply_patch is off unless the provider is listed (reference: off for non-OpenAI providers). */
  private applyPatchUnit(): LayerUnit | undefined {
    return this.unit("apply_patch_provider", () => {
      const rule = `exec.applyPatchProviders: [${this.document.exec.applyPatchProviders.join(", ")}]`;
      return makeUnit(this.ctx, "global_provider", "exec.applyPatchProviders", (tool) =>
        tool.name === "apply_patch"
          ? {
              rule,
              reason: `apply_patch is enabled only for the providers ${this.document.exec.applyPatchProviders.join(", ") || "(none)"}.`,
            }
          : undefined,
      );
    });
  }

  agentUnits(agentId: string | undefined): LayerUnit[] {
    const agent = ownValue(this.document.agents, agentId);
    if (!agent) return [];
    const base = `agents.${agentId}.tools`;
    return compact([
      this.unit(`ap:${agentId}`, () =>
        profileUnit(
          this.ctx,
          "agent",
          `${base}.profile`,
          agent.tools.profile,
          agent.tools.alsoAllow,
          this.document.profiles,
        ),
      ),
      this.unit(`a:${agentId}`, () => policyUnit(this.ctx, "agent", base, agent.tools)),
    ]);
  }

  agentProviderUnits(agentId: string | undefined, { agentKey }: ProviderChoice): LayerUnit[] {
    const agent = ownValue(this.document.agents, agentId);
    if (!agent || agentKey === undefined) return [];
    const entry = ownValue(agent.tools.byProvider, agentKey) as ScopedToolPolicy;
    const source = `agents.${agentId}.tools.byProvider.${agentKey}`;
    // The agent id's length keeps agent "a:b" with key "c" apart from agent "a" with key "b:c".
    const key = `${agentId!.length}:${agentId}:${agentKey}`;
    return compact([
      this.unit(`app:${key}`, () =>
        profileUnit(
          this.ctx,
          "agent_provider",
          `${source}.profile`,
          entry.profile,
          entry.alsoAllow,
          this.document.profiles,
        ),
      ),
      this.unit(`apo:${key}`, () => policyUnit(this.ctx, "agent_provider", source, entry)),
    ]);
  }

  groupUnits(teamIds: readonly string[], senderId?: string): LayerUnit[] {
    const teams = teamIds.map((id) => {
      const policy = ownValue(this.document.teams, id);
      return (
        policy &&
        this.unit(`t:${id}`, () => policyUnit(this.ctx, "group", `teams.${id}`, policy, { flagPluginOnly: true }))
      );
    });
    const sender = ownValue(this.document.senders, senderId);
    const senderUnit =
      sender &&
      this.unit(`s:${senderId}`, () =>
        policyUnit(this.ctx, "group", `senders.${senderId}`, sender, { flagPluginOnly: true }),
      );
    return compact([...teams, senderUnit]);
  }

  sandboxUnits(): LayerUnit[] {
    const configured = this.document.sandbox.tools;
    const isDefault = !configured.allow && !configured.alsoAllow && !configured.deny;
    const source = isDefault ? "sandbox.tools (default)" : "sandbox.tools";
    return compact([
      this.unit("sandbox", () =>
        policyUnit(this.ctx, "sandbox", source, resolveSandboxToolPolicy(configured), { builtin: isDefault }),
      ),
    ]);
  }

  /** Hard denies first (no admin setting lifts them), then the leaf set at the depth limit, then subagents.tools. */
  subagentUnits(depth: number): LayerUnit[] {
    const { tools, maxSpawnDepth } = this.document.subagents;
    const always = this.unit("sub:always", () =>
      policyUnit(
        this.ctx,
        "subagent",
        "SUBAGENT_TOOL_DENY_ALWAYS",
        { deny: [...SUBAGENT_TOOL_DENY_ALWAYS] },
        { builtin: true },
      ),
    );
    // A run at depth d may manage children only while d < maxSpawnDepth: its children would otherwise exceed the limit.
    const leaf =
      depth >= maxSpawnDepth
        ? this.unit("sub:leaf", () =>
            makeUnit(this.ctx, "subagent", "subagents.maxSpawnDepth", (tool) =>
              SUBAGENT_TOOL_DENY_LEAF.includes(tool.name)
                ? {
                    rule: `maxSpawnDepth: ${maxSpawnDepth}`,
                    reason: `${tool.name} is removed: a subagent at maxSpawnDepth (${maxSpawnDepth}) may not start or manage children.`,
                  }
                : undefined,
            ),
          )
        : undefined;
    const configured = this.unit("sub:config", () => policyUnit(this.ctx, "subagent", "subagents.tools", tools));
    return compact([always, leaf, configured]);
  }

  limitsFor(agentId: string | undefined): SystemToolSettings {
    const agent = ownValue(this.document.agents, agentId);
    const key = agent ? (agentId as string) : "";
    return memo(this.limitsByAgent, key, () =>
      Object.freeze(mergeToolPolicies({ system: this.document.system, agent: agent?.system })),
    );
  }

  systemUnits(agentId: string | undefined): LayerUnit[] {
    const key = hasOwnKey(this.document.agents, agentId) ? (agentId as string) : "";
    const limits = this.limitsFor(agentId);
    return compact([
      this.unit(`sys:${key}`, () =>
        makeUnit(this.ctx, "system", "system", (tool) => {
          const rule = systemSettingsRule(limits, tool.name, tool.pluginId);
          if (!rule) return undefined;
          const capability = capabilityOfTool(tool.name, tool.pluginId) as string;
          return { rule, capability, reason: `${tool.name} is not available: ${rule} in the system tool settings.` };
        }),
      ),
    ]);
  }
}
