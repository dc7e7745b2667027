// The effective tool policy: the one function the exposure gate, the execution gate, the prompt and the admin
// matrix call, so what is declared is what is enforced.
import { PolicyCompilation } from "./compiled-policy";
import { ContextKey, KeyedCache, PRINCIPAL_AT, type ContextCopy } from "./context-key";
import {
  agentPart,
  depthClass,
  layersOf,
  principalPart,
  providerPart,
  select,
  warningsOf,
  type AgentPart,
  type PrincipalPart,
  type ProviderPart,
  type Selection,
} from "./context-parts";
import { DecisionBuilder, type Decisions, type Layers } from "./decisions";
import type { PolicyDocument } from "./document";
import type { ExecSettings } from "./exec-approvals";
import type { LayerUnit } from "./layer-units";
import { LruMap } from "./lru";
import type { SystemToolSettings } from "./system-settings";
import {
  TOOL_MODES,
  type PolicyContext,
  type PolicyWarning,
  type ToolDecision,
  type ToolMeta,
  type ToolMode,
} from "./types";

export type EffectiveToolPolicy = {
  context: PolicyContext;
  /** The mode the layers ran with: chat_safe when the context's mode is invalid or not granted. */
  mode: ToolMode;
  grantedModes: readonly ToolMode[];
  sandboxed: boolean;
  tools: Readonly<Record<string, ToolDecision>>;
  /** Normalized names in registration order. */
  allowedTools: readonly string[];
  limits: SystemToolSettings;
  exec: ExecSettings;
  warnings: readonly PolicyWarning[];
  /** O(1). Unknown names yield TOOL_NOT_FOUND. */
  check(name: string): ToolDecision;
};

export type PolicyConfig = {
  document: PolicyDocument;
  tools: readonly ToolMeta[];
  /** For documents re-read per request (new object each time): a key that changes whenever document or tools
   * change, e.g. `${policyVersionId}:${toolsetVersion}`. Without it, compilations are cached by object identity. */
  cacheKey?: string;
};

const RESOLVE_CACHE_LIMIT = 512;

/** What every context selecting the same units shares: decisions, and the warnings when the context adds none. */
type Shared = { decisions: Decisions; warnings: readonly PolicyWarning[] };
type Principal = PrincipalPart & { listId: number };
/** A provider part under its agent: `listId` names the units of both, so a selection's key is a few integers. */
type AgentProvider = ProviderPart & { listId: number };
type AgentEntry = AgentPart & { providers: LruMap<number, AgentProvider> };

export class CompiledPolicy {
  private readonly compilation: PolicyCompilation;
  private readonly decisionBuilder: DecisionBuilder;
  private readonly key = new ContextKey();
  private readonly results = new KeyedCache<EffectiveToolPolicy>(RESOLVE_CACHE_LIMIT);
  // The parts of a selection, each per the fields it reads, and what selections share. Equal unit lists intern to
  // one list id; evicting one only costs sharing, since ids are never reused.
  private readonly principals = new KeyedCache<Principal>(RESOLVE_CACHE_LIMIT);
  private readonly agents = new LruMap<string | undefined, AgentEntry>(RESOLVE_CACHE_LIMIT);
  private readonly shared = new LruMap<number, Shared>(RESOLVE_CACHE_LIMIT);
  private readonly listIds = new LruMap<string, number>(RESOLVE_CACHE_LIMIT * 4);
  private nextListId = 1;
  /** Counts resolve() calls: one that changed while a context was read means a getter resolved again on this engine. */
  private calls = 0;

  /** `cacheResults: false` rebuilds every resolution (benchmarks, tests); units are still compiled once. */
  constructor(
    document: PolicyDocument,
    tools: readonly ToolMeta[],
    private readonly options: { cacheResults?: boolean } = {},
  ) {
    this.compilation = new PolicyCompilation(document, tools);
    this.decisionBuilder = new DecisionBuilder(this.compilation);
  }

  get document(): PolicyDocument {
    return this.compilation.document;
  }

  resolve(context: PolicyContext): EffectiveToolPolicy {
    if (this.options.cacheResults === false) return this.resolveUncached(context);
    const { key } = this;
    const call = ++this.calls;
    // A hit is decided on the one read the key made of each field, and the result was built from equal values. A
    // getter that resolved another context meanwhile overwrote the key: then nothing is looked up with it.
    if (!key.read(context) || this.calls !== call) return this.resolveUncached(context);
    const cached = this.results.find(key, 0, key.length);
    if (cached) return cached;
    // A miss resolves the copy of what the key read (reading the context again could give other values).
    const copy = key.copy();
    const policy = this.build(copy, ...this.selectCached(copy));
    this.results.add(key, 0, key.length, policy);
    return policy;
  }

  /** The units each layer selects for a context (benchmarks and tests read the engine's own bitsets). */
  layers(context: PolicyContext): Layers {
    return layersOf(this.compilation, this.selectUncached(readOnce(context)));
  }

  /** Resolved from scratch, on a copy of the context read once (ContextKey.read says who comes here). */
  private resolveUncached(context: PolicyContext): EffectiveToolPolicy {
    const copy = readOnce(context);
    return this.build(copy, this.selectUncached(copy), undefined);
  }

  private selectUncached(context: PolicyContext): Selection {
    const c = this.compilation;
    const { agentId, provider, model } = context;
    return select(
      context,
      principalPart(c, context),
      agentPart(c, agentId),
      providerPart(c, agentId, c.providerChoice(agentId, provider, model)),
    );
  }

  /** The selection from cached parts, and the key of what it shares with every context selecting the same units. */
  private selectCached(context: PolicyContext): [Selection, number | undefined] {
    const c = this.compilation;
    const { agentId, provider, model } = context;
    const { key } = this;
    let principal = this.principals.find(key, PRINCIPAL_AT, key.length);
    if (!principal) {
      const part = principalPart(c, context);
      principal = { ...part, listId: this.listId([part.groupUnits]) };
      this.principals.add(key, PRINCIPAL_AT, key.length, principal);
    }
    let agent = this.agents.get(agentId);
    if (!agent) {
      agent = { ...agentPart(c, agentId), providers: new LruMap(RESOLVE_CACHE_LIMIT) };
      this.agents.set(agentId, agent);
    }
    // Keyed by what the provider layers read, not by the names: a new model name usually chooses what another did.
    const choice = c.providerChoice(agentId, provider, model);
    let byProvider = agent.providers.get(choice.id);
    if (!byProvider) {
      const part = providerPart(c, agentId, choice);
      byProvider = {
        ...part,
        listId: this.listId([
          agent.agentUnits,
          agent.systemUnits,
          part.providerProfileUnits,
          part.globalProviderUnits,
          part.agentProviderUnits,
        ]),
      };
      agent.providers.set(choice.id, byProvider);
    }
    const s = select(context, principal, agent, byProvider);
    const flags =
      ((TOOL_MODES.indexOf(s.mode) * 2 + (s.owner ? 1 : 0)) * 2 + (s.sandboxed ? 1 : 0)) * 3 + depthClass(c, s.depth);
    // One exact number while the ids fit (2^21 distinct unit lists is far beyond any document); past that, no sharing.
    const exact = byProvider.listId < 2 ** 21 && principal.listId < 2 ** 21 && flags < 64;
    return [s, exact ? (byProvider.listId * 2 ** 21 + principal.listId) * 64 + flags : undefined];
  }

  private listId(lists: ReadonlyArray<readonly LayerUnit[]>): number {
    const key = lists.map((units) => units.map((unit) => unit.id).join(",")).join("|");
    let id = this.listIds.get(key);
    if (id === undefined) {
      id = this.nextListId++;
      this.listIds.set(key, id);
    }
    return id;
  }

  private build(context: PolicyContext, s: Selection, sharedKey: number | undefined): EffectiveToolPolicy {
    const c = this.compilation;
    let shared = sharedKey === undefined ? undefined : this.shared.get(sharedKey);
    let layers: Layers | undefined;
    if (!shared) {
      layers = layersOf(c, s);
      shared = {
        decisions: this.decisionBuilder.build(s.mode, layers),
        warnings: Object.freeze(warningsOf(c, layers)),
      };
      if (sharedKey !== undefined) this.shared.set(sharedKey, shared);
    }
    // Only a context that adds a warning of its own pays for a new list.
    let warnings = shared.warnings;
    if (s.modeWarning || s.agent.warning) {
      const own =
        s.modeWarning && s.agent.warning ? [s.modeWarning, s.agent.warning] : [(s.modeWarning ?? s.agent.warning)!];
      warnings = Object.freeze(warningsOf(c, layers ?? layersOf(c, s), own));
    }
    return newPolicy(frozenCopy(context, s.principal), s, shared.decisions, warnings, c.document.exec);
  }
}

/**
 * The context a resolution without the caches reads: each declared field read once (a getter runs once, a list is
 * copied once), nothing else. Everything after this reads the copy, so a context that answers differently on each
 * read cannot pass a check with one value and be resolved with another (ContextKey.copy is the cached path's).
 */
function readOnce(context: PolicyContext): PolicyContext {
  const { roles, senderIsOwner, mode, provider, model, agentId, teamIds, senderId, sandboxed, subagentDepth } = context;
  const copy: ContextCopy = {
    roles: Array.isArray(roles) ? (roles.slice() as PolicyContext["roles"]) : roles,
    senderIsOwner,
    mode,
    provider,
    model,
    agentId,
    teamIds: Array.isArray(teamIds) ? teamIds.slice() : teamIds,
    senderId,
    sandboxed,
    subagentDepth,
  };
  return copy as unknown as PolicyContext;
}

/** The principal's frozen copy of a list when it lists the same names in the same order, else a new one. */
function frozenList<T>(list: readonly T[], kept: readonly T[] | undefined): readonly T[] {
  let same = kept !== undefined && kept.length === list.length;
  for (let i = 0; same && i < list.length; i += 1) same = list[i] === kept![i];
  return same ? kept! : Object.freeze([...list]);
}

/**
 * The result's frozen copy of the engine's own copy of the context (readOnce, ContextKey.copy: the declared fields
 * in declared order), with the lists its principal part keeps frozen. A literal: V8 freezes it ~5x faster than a
 * spread clone.
 */
function frozenCopy(context: PolicyContext, principal: PrincipalPart): PolicyContext {
  const copy: ContextCopy = {
    roles: frozenList(context.roles, principal.roles) as PolicyContext["roles"],
    senderIsOwner: context.senderIsOwner,
    mode: context.mode,
    provider: context.provider,
    model: context.model,
    agentId: context.agentId,
    teamIds: context.teamIds && (frozenList(context.teamIds, principal.teamIds) as string[]),
    senderId: context.senderId,
    sandboxed: context.sandboxed,
    subagentDepth: context.subagentDepth,
  };
  return Object.freeze(copy) as unknown as PolicyContext;
}

const DECISIONS = Symbol("decisions");
type Building = Omit<EffectiveToolPolicy, "tools"> & { [DECISIONS]: Decisions };
// One getter for every result, finding the decisions through the result: a getter written in each result's literal
// is a new function per result, which made V8 build the object ~3× slower than everything else in it.
const TOOLS: PropertyDescriptor = {
  get(this: Building) {
    return this[DECISIONS].tools;
  },
  enumerable: true,
};

function newPolicy(
  context: PolicyContext,
  s: Selection,
  decisions: Decisions,
  warnings: readonly PolicyWarning[],
  exec: ExecSettings,
): EffectiveToolPolicy {
  const policy = { context, mode: s.mode, grantedModes: s.principal.grantedModes, sandboxed: s.sandboxed } as Building;
  policy[DECISIONS] = decisions;
  // The fields in the order they always had (tools after sandboxed), so the result reads and serializes as before.
  Object.defineProperty(policy, "tools", TOOLS);
  policy.allowedTools = decisions.allowedTools;
  policy.limits = s.agent.limits;
  policy.exec = exec;
  policy.warnings = warnings;
  policy.check = decisions.check;
  return Object.freeze(policy) as Building as unknown as EffectiveToolPolicy;
}
