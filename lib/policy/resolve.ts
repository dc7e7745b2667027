// Compilation caches and the entry point every gate calls.
import type { PolicyDocument } from "./document";
import { CompiledPolicy, type EffectiveToolPolicy, type PolicyConfig } from "./effective-policy";
import type { PolicyContext, ToolMeta } from "./types";

// Keyed by object identity: documents and tool lists are treated as immutable values (parse → new object).
const compiledByDocument = new WeakMap<PolicyDocument, WeakMap<readonly ToolMeta[], CompiledPolicy>>();

/** Compiles (or returns the cached compilation of) a document for a tool list. */
export function compilePolicy(document: PolicyDocument, tools: readonly ToolMeta[]): CompiledPolicy {
  let byTools = compiledByDocument.get(document);
  if (!byTools) {
    byTools = new WeakMap();
    compiledByDocument.set(document, byTools);
  }
  let compiled = byTools.get(tools);
  if (!compiled) {
    compiled = new CompiledPolicy(document, tools);
    byTools.set(tools, compiled);
  }
  return compiled;
}

const COMPILED_BY_KEY_LIMIT = 32;
const compiledByKey = new Map<string, CompiledPolicy>();

function compileByKey(key: string, document: PolicyDocument, tools: readonly ToolMeta[]): CompiledPolicy {
  let compiled = compiledByKey.get(key);
  if (!compiled) {
    compiled = new CompiledPolicy(document, tools);
    if (compiledByKey.size >= COMPILED_BY_KEY_LIMIT) compiledByKey.delete(compiledByKey.keys().next().value as string);
    compiledByKey.set(key, compiled);
  }
  return compiled;
}

export function resolveEffectiveToolPolicy(context: PolicyContext, config: PolicyConfig): EffectiveToolPolicy {
  const compiled =
    config.cacheKey === undefined
      ? compilePolicy(config.document, config.tools)
      : compileByKey(config.cacheKey, config.document, config.tools);
  return compiled.resolve(context);
}
