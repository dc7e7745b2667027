// Which byProvider entries a (provider, model) selects — "provider/model" before "provider", keys compared
// case-insensitively — and whether apply_patch is on for the provider. Asked once per new context, so a choice
// builds no "provider/model" string and hashes nothing: it compares the model with the few keys that name one.
import type { PolicyDocument, ScopedToolPolicy } from "./document";
import { ownValue } from "./own";

/** The lower-case names a byProvider table is searched for, most specific first: "provider/model", "provider". */
function providerLookupNames(provider?: string, model?: string): [string | undefined, string] | undefined {
  if (!provider) return undefined;
  const p = provider.trim().toLowerCase();
  const m = model?.trim().toLowerCase();
  return [m ? (m.startsWith(`${p}/`) ? m : `${p}/${m}`) : undefined, p];
}

/** The most specific byProvider key: "provider/model" before "provider". Keys compare case-insensitively. */
export function resolveProviderKey(
  byProvider: Readonly<Record<string, unknown>> | undefined,
  provider?: string,
  model?: string,
): string | undefined {
  const names = providerLookupNames(provider, model);
  if (!byProvider || !names) return undefined;
  const keys = Object.keys(byProvider);
  return keys.find((key) => key.toLowerCase() === names[0]) ?? keys.find((key) => key.toLowerCase() === names[1]);
}

/** What the provider layers read of a context under one agent: the byProvider keys chosen and the apply_patch rule. */
export type ProviderChoice = {
  toolsKey: string | undefined;
  agentKey: string | undefined;
  applyPatchListed: boolean;
  /** The three as one integer, unique under one agent (a cache key that needs no string). */
  id: number;
};

/** A byProvider table's keys; each lower-case key's first position; the lower-case keys naming a model ("p/m"). */
type ProviderIndex = {
  keys: readonly string[];
  byLowerCase: ReadonlyMap<string, number>;
  modelKeys: ReadonlyArray<readonly [string, number]>;
};

const SLASH = 47;
const NONE = Symbol("none");

export class ProviderChooser {
  private readonly indexes = new WeakMap<object, ProviderIndex>();
  private readonly applyPatchProviders: ReadonlySet<string>;
  // The provider is the same in nearly every context of a deployment: its normalized form is kept.
  private lastProvider: string | undefined;
  private lastP = "";
  // Likewise the agent, whose byProvider table is looked up through the document.
  private lastAgentId: string | undefined;
  private lastAgentIndex: ProviderIndex | undefined | typeof NONE = NONE;

  constructor(private readonly document: PolicyDocument) {
    this.applyPatchProviders = new Set(document.exec.applyPatchProviders.map((entry) => entry.toLowerCase()));
  }

  choose(agentId: string | undefined, provider?: string, model?: string): ProviderChoice {
    let p: string | undefined;
    if (provider) {
      if (provider !== this.lastProvider) {
        this.lastP = provider.trim().toLowerCase();
        this.lastProvider = provider;
      }
      p = this.lastP;
    }
    const m = p !== undefined && model ? model.trim().toLowerCase() : undefined;
    const tools = this.index(this.document.tools.byProvider);
    if (agentId !== this.lastAgentId || this.lastAgentIndex === NONE) {
      this.lastAgentIndex = this.index(ownValue(this.document.agents, agentId)?.tools.byProvider);
      this.lastAgentId = agentId;
    }
    const agent = this.lastAgentIndex;
    const toolsAt = position(tools, p, m);
    const agentAt = position(agent, p, m);
    const applyPatchListed = this.applyPatchProviders.has(p ?? "");
    return {
      toolsKey: tools?.keys[toolsAt],
      agentKey: agent?.keys[agentAt],
      applyPatchListed,
      id: ((toolsAt + 1) * ((agent?.keys.length ?? 0) + 1) + agentAt + 1) * 2 + (applyPatchListed ? 1 : 0),
    };
  }

  private index(byProvider: Record<string, ScopedToolPolicy> | undefined): ProviderIndex | undefined {
    if (!byProvider) return undefined;
    let index = this.indexes.get(byProvider);
    if (!index) {
      const keys = Object.keys(byProvider);
      const byLowerCase = new Map<string, number>();
      keys.forEach((key, at) => {
        if (!byLowerCase.has(key.toLowerCase())) byLowerCase.set(key.toLowerCase(), at);
      });
      const modelKeys = [...byLowerCase].filter(([lower]) => lower.includes("/"));
      this.indexes.set(byProvider, (index = { keys, byLowerCase, modelKeys }));
    }
    return index;
  }
}

/** resolveProviderKey's answer as a position in the table's keys, -1 for none. */
function position(index: ProviderIndex | undefined, p: string | undefined, m: string | undefined): number {
  if (!index || p === undefined) return -1;
  // Only a key containing "/" can equal "provider/model".
  if (m) for (const [lower, at] of index.modelKeys) if (isFullName(lower, p, m)) return at;
  return index.byLowerCase.get(p) ?? -1;
}

/** lower === (m starts with "p/" ? m : `p/m`), without building either string. */
function isFullName(lower: string, p: string, m: string): boolean {
  const qualified = m.length > p.length && m.charCodeAt(p.length) === SLASH && m.startsWith(p);
  if (qualified) return lower === m;
  return (
    lower.length === p.length + 1 + m.length &&
    lower.charCodeAt(p.length) === SLASH &&
    lower.startsWith(p) &&
    lower.endsWith(m)
  );
}
