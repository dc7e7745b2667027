// Per-tool decisions for one selection of units. Which tools survive is one OR of the selected units' bitsets; each
// tool's decision (its chain, rule and reason) is built the first time it is read, by check() or the tools record.
// A policy over 5,000 tools of which a turn calls three builds three decisions, not 5,000.
import { ASK_BY_TOOL_RULE, type PolicyCompilation } from "./compiled-policy";
import { bitWords, hasBit, type LayerUnit, type Removal } from "./layer-units";
import { normalizeToolName } from "./names";
import { errorCodeForLayer } from "./policy-context";
import { POLICY_LAYERS, type ChainEntry, type LayerId, type ToolDecision, type ToolMode } from "./types";

export type Decisions = {
  readonly tools: Readonly<Record<string, ToolDecision>>;
  readonly allowedTools: readonly string[];
  check(name: string): ToolDecision;
};

/** The units a context selects, one list per layer in POLICY_LAYERS order (empty: the layer does not apply). */
export type Layers = ReadonlyArray<readonly LayerUnit[]>;

const KEPT = Object.fromEntries(
  POLICY_LAYERS.map((layer) => [layer, Object.freeze({ layer, outcome: "kept" })]),
) as Record<LayerId, ChainEntry>;
const SKIPPED = Object.fromEntries(
  POLICY_LAYERS.map((layer) => [layer, Object.freeze({ layer, outcome: "skipped" })]),
) as Record<LayerId, ChainEntry>;

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

export class DecisionBuilder {
  private readonly keptCache = new Map<
    string,
    { chain: readonly ChainEntry[]; decisions: Array<ToolDecision | undefined> }
  >();

  constructor(private readonly compilation: PolicyCompilation) {}

  build(mode: ToolMode, layers: Layers): Decisions {
    const c = this.compilation;
    const count = c.tools.length;
    const kept = this.keptDecisions(mode, layers);
    const removed = new Uint32Array(bitWords(count));
    for (const units of layers)
      for (const unit of units) for (let w = 0; w < removed.length; w += 1) removed[w]! |= unit.removed[w]!;
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
  private keptDecisions(mode: ToolMode, layers: Layers) {
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
