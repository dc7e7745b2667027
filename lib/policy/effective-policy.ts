// The effective tool policy: the one function the exposure gate, the execution gate, the prompt and the admin
// matrix call, so what is declared is what is enforced.
import { ASK_BY_TOOL_RULE, PolicyCompilation } from "./compiled-policy";
import type { PolicyDocument } from "./document";
import type { ExecSettings } from "./exec-approvals";
import { bitWords, hasBit, type LayerUnit, type Removal } from "./layer-units";
import { isToolMode } from "./modes";
import { contextKey, errorCodeForLayer, isSandboxed, resolveGrantedModes } from "./policy-context";
import { normalizeToolName } from "./names";
import { hasOwnKey } from "./own";
import type { SystemToolSettings } from "./system-settings";
import { LruMap } from "./lru";
import {
  POLICY_LAYERS,
  type ChainEntry,
  type LayerId,
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

const KEPT = Object.fromEntries(POLICY_LAYERS.map((layer) => [layer, Object.freeze({ layer, outcome: "kept" })])) as Record<LayerId, ChainEntry>;
const SKIPPED = Object.fromEntries(POLICY_LAYERS.map((layer) => [layer, Object.freeze({ layer, outcome: "skipped" })])) as Record<LayerId, ChainEntry>;

function notFound(name: string): ToolDecision {
  return Object.freeze({
    name,
    allowed: false,
    effect: "deny",
    layer: "not_found",
    reason: `No tool named "${name}" exists.`,
    errorCode: "TOOL_NOT_FOUND",
    availableModes: [],
    chain: [],
  });
}

const RESOLVE_CACHE_LIMIT = 512;

export class CompiledPolicy {
  private readonly compilation: PolicyCompilation;
  private readonly cache = new LruMap<string, EffectiveToolPolicy>(RESOLVE_CACHE_LIMIT);
  private readonly decisionCache = new LruMap<string, Decisions>(RESOLVE_CACHE_LIMIT);
  private readonly keptCache = new Map<string, { chain: readonly ChainEntry[]; decisions: Array<ToolDecision | undefined> }>();

  /** `cacheResults: false` rebuilds every resolution (benchmarks, tests); units are still compiled once. */
  constructor(
    document: PolicyDocument,
    tools: readonly ToolMeta[],
    private readonly options: { cacheResults?: boolean } = {},
  ) {
    this.compilation = new PolicyCompilation(document, tools);
  }

  get document(): PolicyDocument {
    return this.compilation.document;
  }

  resolve(context: PolicyContext): EffectiveToolPolicy {
    if (this.options.cacheResults === false) return this.resolveUncached(context);
    const key = contextKey(context);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const resolved = this.resolveUncached(context);
    this.cache.set(key, resolved);
    return resolved;
  }

  private resolveUncached(context: PolicyContext): EffectiveToolPolicy {
    const c = this.compilation;
    const document = c.document;
    const warnings: PolicyWarning[] = [...c.staticWarnings];
    const grantedModes = resolveGrantedModes(context, document);
    let mode: ToolMode = "chat_safe";
    if (!isToolMode(context.mode)) {
      warnings.push({ code: "invalid_mode", layer: "mode", message: `Invalid mode "${String(context.mode)}"; evaluated as chat_safe` });
    } else if (!grantedModes.includes(context.mode)) {
      warnings.push({ code: "mode_not_granted", layer: "mode", message: `Mode ${context.mode} is not granted to this sender; evaluated as chat_safe` });
    } else {
      mode = context.mode;
    }
    if (context.agentId !== undefined && !hasOwnKey(document.agents, context.agentId)) {
      warnings.push({ code: "unknown_agent", layer: "agent", source: `agents.${context.agentId}`, message: `Unknown agent "${context.agentId}"; agent layers skipped` });
    }
    const sandboxed = isSandboxed(context, document);
    const depth = context.subagentDepth ?? 0;
    const teamIds = [...(context.teamIds ?? [])].sort();
    const { provider, model, agentId } = context;
    const layers: ReadonlyArray<readonly LayerUnit[]> = [
      [c.modeUnit(mode)],
      context.senderIsOwner === true ? [] : [c.ownerOnlyUnit()],
      c.profileUnits(),
      c.providerProfileUnits(provider, model),
      c.globalUnits(),
      c.globalProviderUnits(provider, model),
      c.agentUnits(agentId),
      c.agentProviderUnits(agentId, provider, model),
      c.groupUnits(teamIds, context.senderId),
      sandboxed ? c.sandboxUnits() : [],
      depth > 0 ? c.subagentUnits(depth) : [],
      c.systemUnits(agentId),
    ];
    for (const units of layers) for (const unit of units) warnings.push(...unit.warnings);
    const decisions = this.decisionsFor(mode, layers);
    return Object.freeze({
      context: Object.freeze({
        ...context,
        roles: Object.freeze([...context.roles]) as PolicyContext["roles"],
        ...(context.teamIds ? { teamIds: Object.freeze([...context.teamIds]) as string[] } : {}),
      }),
      mode,
      grantedModes: Object.freeze(grantedModes),
      sandboxed,
      get tools() {
        return decisions.tools;
      },
      allowedTools: decisions.allowedTools,
      limits: c.limitsFor(agentId),
      exec: document.exec,
      warnings: Object.freeze(warnings),
      check: decisions.check,
    });
  }

  /** Decisions depend only on the mode and the units selected, so contexts that select the same units share them. */
  private decisionsFor(mode: ToolMode, layers: ReadonlyArray<readonly LayerUnit[]>): Decisions {
    let signature: string = mode;
    for (const units of layers) {
      signature += "|";
      for (const unit of units) signature += `${unit.id},`;
    }
    if (this.options.cacheResults === false) return this.buildDecisions(mode, layers);
    const cached = this.decisionCache.get(signature);
    if (cached) return cached;
    const decisions = this.buildDecisions(mode, layers);
    this.decisionCache.set(signature, decisions);
    return decisions;
  }

  /**
   * Which tools survive is one OR of the selected units' bitsets; each tool's decision (its chain, rule and reason) is
   * built the first time it is read, by check() or the tools record. A policy over 5,000 tools of which a turn calls
   * three builds three decisions, not 5,000.
   */
  private buildDecisions(mode: ToolMode, layers: ReadonlyArray<readonly LayerUnit[]>): Decisions {
    const c = this.compilation;
    const count = c.tools.length;
    const kept = this.keptDecisions(mode, layers);
    const removed = new Uint32Array(bitWords(count));
    for (const units of layers) for (const unit of units) for (let w = 0; w < removed.length; w += 1) removed[w]! |= unit.removed[w]!;
    const allowedTools: string[] = [];
    for (let i = 0; i < count; i += 1) if (!hasBit(removed, i)) allowedTools.push(c.tools[i]!.name);
    const decisions: Array<ToolDecision | undefined> = new Array(count);
    const decisionAt = (i: number): ToolDecision => {
      let decision = decisions[i];
      if (decision) return decision;
      if (!hasBit(removed, i)) return (decisions[i] = kept.decisions[i] ??= this.keptDecision(i, mode, kept.chain));
      // The first removing unit of each layer names the layer's outcome; the first one overall decides.
      const chain = kept.chain.slice();
      let first: Removal | undefined;
      let firstLayer: LayerId | undefined;
      for (let l = 0; l < layers.length; l += 1) {
        for (const unit of layers[l]!) {
          if (!hasBit(unit.removed, i)) continue;
          const removal = unit.removalAt(i);
          chain[l] = removal.entry;
          if (!first) {
            first = removal;
            firstLayer = POLICY_LAYERS[l]!;
          }
          break;
        }
      }
      const tool = c.tools[i]!;
      decision = Object.freeze({
        name: tool.name,
        allowed: false,
        effect: "deny",
        layer: firstLayer!,
        rule: first!.rule,
        source: first!.entry.source,
        reason: first!.reason,
        errorCode: errorCodeForLayer(firstLayer!),
        availableModes: tool.effectiveModes,
        capability: first!.capability,
        chain: Object.freeze(chain),
      });
      return (decisions[i] = decision);
    };
    let record: Readonly<Record<string, ToolDecision>> | undefined;
    const { indexByName } = c;
    return {
      // Built on first read: the gates only need check(), and a large record costs more than all decisions.
      // fromEntries defines own properties, so even a tool named "__proto__" becomes a plain key.
      get tools() {
        record ??= Object.freeze(Object.fromEntries(c.tools.map((tool, i) => [tool.name, decisionAt(i)])));
        return record;
      },
      allowedTools: Object.freeze(allowedTools),
      check(name: string): ToolDecision {
        const index = indexByName.get(name) ?? indexByName.get(normalizeToolName(name));
        return index === undefined ? notFound(normalizeToolName(name)) : decisionAt(index);
      },
    };
  }

  /** Kept decisions depend only on the mode and which layers apply, so they are built once per pattern. */
  private keptDecisions(mode: ToolMode, layers: ReadonlyArray<readonly LayerUnit[]>) {
    let key: string = mode;
    for (const units of layers) key += units.length > 0 ? "1" : "0";
    let kept = this.keptCache.get(key);
    if (!kept) {
      const chain = Object.freeze(layers.map((units, l) => (units.length > 0 ? KEPT : SKIPPED)[POLICY_LAYERS[l]!]));
      kept = { chain, decisions: new Array<ToolDecision | undefined>(this.compilation.tools.length) };
      this.keptCache.set(key, kept);
    }
    return kept;
  }

  private keptDecision(index: number, mode: ToolMode, chain: readonly ChainEntry[]): ToolDecision {
    const tool = this.compilation.tools[index]!;
    const ask = this.compilation.askRuleAt(index);
    return Object.freeze({
      name: tool.name,
      allowed: true,
      effect: ask ? "ask" : "allow",
      layer: "allowed",
      rule: ask,
      source: ask ? (ask === ASK_BY_TOOL_RULE ? "tool" : "askRules") : undefined,
      reason: ask
        ? `${tool.name} is allowed in ${mode} mode, but each call needs an owner's approval (${ask}).`
        : `${tool.name} is allowed in ${mode} mode: no layer removed it.`,
      errorCode: undefined,
      availableModes: tool.effectiveModes,
      capability: undefined,
      chain,
    });
  }
}

type Decisions = Pick<EffectiveToolPolicy, "tools" | "allowedTools" | "check">;
