// What a context selects from a compiled document, split into parts that each depend on a few of its fields (the
// principal: roles, teams, sender; the agent; the provider and model under that agent), so a compiled policy can
// keep each part per sub-key and a new context whose parts were seen before costs a few lookups, not a resolution.
import type { PolicyCompilation } from "./compiled-policy";
import type { Layers } from "./decisions";
import type { LayerUnit } from "./layer-units";
import { isToolMode } from "./modes";
import { hasOwnKey } from "./own";
import { isAgentSandboxed, isMemberSandboxed, resolveGrantedModes } from "./policy-context";
import type { SystemToolSettings } from "./system-settings";
import type { ProviderChoice } from "./provider-choice";
import type { PolicyContext, PolicyWarning, ToolMode } from "./types";

export type PrincipalPart = {
  /** Frozen copies of the context's lists, which every result for this principal shares. */
  roles: PolicyContext["roles"];
  teamIds: PolicyContext["teamIds"];
  grantedModes: readonly ToolMode[];
  groupUnits: readonly LayerUnit[];
  sandboxed: boolean;
};

export type AgentPart = {
  /** unknown_agent, when the context names an agent the document does not have. */
  warning: PolicyWarning | undefined;
  agentUnits: readonly LayerUnit[];
  systemUnits: readonly LayerUnit[];
  limits: SystemToolSettings;
  sandboxed: boolean;
};

export type ProviderPart = {
  providerProfileUnits: readonly LayerUnit[];
  globalProviderUnits: readonly LayerUnit[];
  agentProviderUnits: readonly LayerUnit[];
};

export function principalPart(
  c: PolicyCompilation,
  context: Pick<PolicyContext, "roles" | "teamIds" | "senderId">,
): PrincipalPart {
  const teamIds = [...(context.teamIds ?? [])].sort();
  return {
    roles: Object.freeze([...context.roles]) as PolicyContext["roles"],
    teamIds: context.teamIds && (Object.freeze([...context.teamIds]) as string[]),
    grantedModes: Object.freeze(resolveGrantedModes(context, c.document)),
    groupUnits: c.groupUnits(teamIds, context.senderId),
    sandboxed: isMemberSandboxed(context, c.document),
  };
}

export function agentPart(c: PolicyCompilation, agentId: string | undefined): AgentPart {
  const known = agentId === undefined || hasOwnKey(c.document.agents, agentId);
  return {
    warning: known
      ? undefined
      : {
          code: "unknown_agent",
          layer: "agent",
          source: `agents.${agentId}`,
          message: `Unknown agent "${agentId}"; agent layers skipped`,
        },
    agentUnits: c.agentUnits(agentId),
    systemUnits: c.systemUnits(agentId),
    limits: c.limitsFor(agentId),
    sandboxed: isAgentSandboxed(agentId, c.document),
  };
}

export function providerPart(c: PolicyCompilation, agentId: string | undefined, choice: ProviderChoice): ProviderPart {
  return {
    providerProfileUnits: c.providerProfileUnits(choice),
    globalProviderUnits: c.globalProviderUnits(choice),
    agentProviderUnits: c.agentProviderUnits(agentId, choice),
  };
}

/** Everything a resolution reads from a context, with its parts. */
export type Selection = {
  /** The mode the layers run with: chat_safe when the context's mode is invalid or not granted. */
  mode: ToolMode;
  modeWarning: PolicyWarning | undefined;
  owner: boolean;
  sandboxed: boolean;
  depth: number;
  principal: PrincipalPart;
  agent: AgentPart;
  provider: ProviderPart;
};

export function select(
  context: PolicyContext,
  principal: PrincipalPart,
  agent: AgentPart,
  provider: ProviderPart,
): Selection {
  let mode: ToolMode = "chat_safe";
  let modeWarning: PolicyWarning | undefined;
  if (!isToolMode(context.mode)) {
    modeWarning = {
      code: "invalid_mode",
      layer: "mode",
      message: `Invalid mode "${String(context.mode)}"; evaluated as chat_safe`,
    };
  } else if (!principal.grantedModes.includes(context.mode)) {
    modeWarning = {
      code: "mode_not_granted",
      layer: "mode",
      message: `Mode ${context.mode} is not granted to this sender; evaluated as chat_safe`,
    };
  } else {
    mode = context.mode;
  }
  return {
    mode,
    modeWarning,
    owner: context.senderIsOwner === true,
    sandboxed: context.sandboxed === true || agent.sandboxed || principal.sandboxed,
    depth: context.subagentDepth ?? 0,
    principal,
    agent,
    provider,
  };
}

/** The subagent layer's units depend on the depth only through these two comparisons (subagentUnits). */
export function depthClass(c: PolicyCompilation, depth: number): 0 | 1 | 2 {
  return depth > 0 ? (depth >= c.document.subagents.maxSpawnDepth ? 2 : 1) : 0;
}

export function layersOf(c: PolicyCompilation, s: Selection): Layers {
  return [
    [c.modeUnit(s.mode)],
    s.owner ? [] : [c.ownerOnlyUnit()],
    c.profileUnits(),
    s.provider.providerProfileUnits,
    c.globalUnits(),
    s.provider.globalProviderUnits,
    s.agent.agentUnits,
    s.provider.agentProviderUnits,
    s.principal.groupUnits,
    s.sandboxed ? c.sandboxUnits() : [],
    s.depth > 0 ? c.subagentUnits(s.depth) : [],
    s.agent.systemUnits,
  ];
}

/** Warnings in the order a resolution meets them: the document's, the context's own, then each selected unit's. */
export function warningsOf(c: PolicyCompilation, layers: Layers, own: readonly PolicyWarning[] = []): PolicyWarning[] {
  const warnings: PolicyWarning[] = [...c.staticWarnings, ...own];
  for (const units of layers) for (const unit of units) warnings.push(...unit.warnings);
  return warnings;
}
