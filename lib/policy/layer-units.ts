// Building blocks of the compiled effective policy. A unit is one rule source inside a layer (e.g. the team "ops"
// inside the group layer) with its verdict for every tool precomputed, so resolving a context only walks arrays.
import {
  analyzeAllowlist,
  compiledPolicyAllows,
  compileToolPolicy,
  evaluateCompiledPolicy,
  findUnknownEntries,
  type CompiledToolPolicy,
} from "./matching";
import { isKnownProfile, resolveToolProfilePolicy, type PluginToolGroups } from "./names";
import type { ChainEntry, LayerId, PolicyWarning, ToolMode, ToolPolicy } from "./types";

export type Removal = { rule: string; reason: string; entry: ChainEntry; capability?: string };

export type LayerUnit = {
  /** Unique per built unit: identical unit selections give identical decisions, which lets resolutions share them. */
  id: number;
  layer: LayerId;
  source: string;
  /** Bit i set: this unit removes tool i. A resolution ORs the units it selects; nothing per tool is built up front. */
  removed: Uint32Array;
  /** Why this unit removes tool i (only asked for a set bit); built on first use, so a tool nobody checks costs nothing. */
  removalAt(index: number): Removal;
  warnings: readonly PolicyWarning[];
};

export const bitWords = (count: number) => (count + 31) >>> 5;
export const hasBit = (bits: Uint32Array, index: number) => (bits[index >>> 5]! & (1 << (index & 31))) !== 0;

/** A normalized tool as the compiled policy sees it. */
export type PolicyTool = {
  name: string;
  pluginId?: string;
  ownerOnly: boolean;
  requiresApproval: boolean;
  declaredModes: readonly ToolMode[] | undefined;
  effectiveModes: readonly ToolMode[];
};

export type UnitContext = {
  tools: readonly PolicyTool[];
  pluginGroups: PluginToolGroups;
  knownNames: ReadonlySet<string>;
  /** Built-in names plus registered non-plugin tools: what a "core" allow-list entry may name. */
  coreNames: ReadonlySet<string>;
};

export const LAYER_LABELS: Readonly<Record<LayerId, string>> = Object.freeze({
  mode: "the mode gate",
  owner_only: "the owner-only rule",
  profile: "the tool profile",
  provider_profile: "the provider profile",
  global: "the global policy",
  global_provider: "the global per-provider policy",
  agent: "the agent policy",
  agent_provider: "the agent per-provider policy",
  group: "the team/sender policy",
  sandbox: "the sandbox policy",
  subagent: "the subagent policy",
  system: "the system tool settings",
});

let nextUnitId = 1;

type RuleFor = (tool: PolicyTool) => { rule: string; reason?: string; capability?: string } | undefined;

/**
 * A unit from two views of one rule: `removes` answers yes/no for every tool when the unit is built (cheap: no text,
 * no objects), `ruleFor` says why, only for a removed tool and only when its decision is read. Without `removes`
 * the rule itself is asked for every tool (units whose rule is cheap and rarely removes anything).
 */
export function makeUnit(
  ctx: UnitContext,
  layer: LayerId,
  source: string,
  ruleFor: RuleFor,
  warnings: readonly PolicyWarning[] = [],
  removes?: (tool: PolicyTool) => boolean,
): LayerUnit {
  const { tools } = ctx;
  const removed = new Uint32Array(bitWords(tools.length));
  const test = removes ?? ((tool: PolicyTool) => ruleFor(tool) !== undefined);
  for (let i = 0; i < tools.length; i += 1) if (test(tools[i]!)) removed[i >>> 5]! |= 1 << (i & 31);
  let removals: Array<Removal | undefined> | undefined;
  const removalAt = (index: number): Removal => {
    removals ??= new Array(tools.length);
    let removal = removals[index];
    if (!removal) {
      const tool = tools[index]!;
      const hit = ruleFor(tool);
      // `removes` and `ruleFor` describe one rule; should they ever disagree, the tool stays removed (fail closed).
      const rule = hit?.rule ?? "removed";
      const reason = hit?.reason ?? `${tool.name} is removed by ${LAYER_LABELS[layer]} (${source}: ${rule}).`;
      const entry: ChainEntry = Object.freeze({ layer, outcome: "removed", rule, source });
      removals[index] = removal = Object.freeze({
        rule,
        reason,
        entry,
        ...(hit?.capability ? { capability: hit.capability } : {}),
      });
    }
    return removal;
  };
  return { id: nextUnitId++, layer, source, removed, removalAt, warnings };
}

function policyWarnings(
  ctx: UnitContext,
  layer: LayerId,
  source: string,
  compiled: CompiledToolPolicy,
  flagPluginOnly: boolean,
): PolicyWarning[] {
  const warnings: PolicyWarning[] = [];
  const unknown = findUnknownEntries([...compiled.deny, ...(compiled.allow ?? [])], ctx.knownNames);
  if (unknown.length > 0) {
    warnings.push({
      code: "unknown_entry",
      layer,
      source,
      entries: unknown,
      message: `${source} names no known tool: ${unknown.join(", ")}`,
    });
  }
  const analysis = flagPluginOnly ? analyzeAllowlist(compiled.allow, ctx.pluginGroups, ctx.coreNames) : undefined;
  if (analysis?.pluginOnly) {
    // Kept on purpose (fail closed): stripping it, as the reference did, would silently widen access.
    warnings.push({
      code: "plugin_only_allowlist",
      layer,
      source,
      entries: analysis.pluginEntries,
      message: `${source} allows only plugin tools (${analysis.pluginEntries.join(", ")}), so every core tool is removed at this layer; kept (fail closed). Use alsoAllow to add plugin tools to a list.`,
    });
  }
  return warnings;
}

/** One allow/deny list as a unit; undefined when the list restricts nothing. */
export function policyUnit(
  ctx: UnitContext,
  layer: LayerId,
  source: string,
  policy: ToolPolicy | undefined,
  options: { flagPluginOnly?: boolean; ruleSuffix?: string; builtin?: boolean } = {},
): LayerUnit | undefined {
  if (!policy || ((policy.allow?.length ?? 0) === 0 && (policy.deny?.length ?? 0) === 0)) return undefined;
  const compiled = compileToolPolicy(policy, ctx.pluginGroups);
  // Built-in lists name tools this deployment may not have; that is not an admin's typo worth a warning.
  const warnings = options.builtin ? [] : policyWarnings(ctx, layer, source, compiled, options.flagPluginOnly === true);
  return makeUnit(
    ctx,
    layer,
    source,
    (tool) => {
      const verdict = evaluateCompiledPolicy(compiled, tool.name);
      return verdict.allowed ? undefined : { rule: `${verdict.rule}${options.ruleSuffix ?? ""}` };
    },
    warnings,
    (tool) => !compiledPolicyAllows(compiled, tool.name),
  );
}

/** A profile reference as a unit. `full` restricts nothing; an unknown id removes everything (fail closed). */
export function profileUnit(
  ctx: UnitContext,
  layer: LayerId,
  source: string,
  profile: string | undefined,
  alsoAllow: readonly string[] | undefined,
  customProfiles: Readonly<Record<string, ToolPolicy>>,
): LayerUnit | undefined {
  if (!profile) return undefined;
  if (!isKnownProfile(profile, customProfiles)) {
    const warning: PolicyWarning = {
      code: "unknown_profile",
      layer,
      source,
      entries: [profile],
      message: `${source} names unknown profile "${profile}"; every tool is removed`,
    };
    return makeUnit(ctx, layer, source, () => ({ rule: `unknown profile "${profile}"` }), [warning]);
  }
  const resolved = resolveToolProfilePolicy(profile, customProfiles);
  if (!resolved) return undefined;
  const merged: ToolPolicy = {
    allow: resolved.allow,
    alsoAllow: [...(resolved.alsoAllow ?? []), ...(alsoAllow ?? [])],
    deny: resolved.deny,
  };
  return policyUnit(ctx, layer, `${source} (${profile})`, merged, { flagPluginOnly: true });
}

export function compact<T>(items: ReadonlyArray<T | undefined>): T[] {
  return items.filter((item): item is T => item !== undefined);
}
