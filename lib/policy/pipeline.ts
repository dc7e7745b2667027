// The reference's ordered policy pipeline over a concrete tool list (used where tools, not a document, are at hand).
import { analyzeAllowlist, compileToolPolicy, evaluateCompiledPolicy, findUnknownEntries } from "./matching";
import { buildPluginToolGroups, CORE_TOOL_NAMES, normalizeToolName } from "./names";
import type { PolicyWarning, ToolPolicy } from "./types";

export type ToolPolicyPipelineStep = {
  policy?: ToolPolicy;
  label: string;
  /** Kept from the reference, but a plugin-only allow list is never stripped here: it is kept and reported. */
  stripPluginOnlyAllowlist?: boolean;
};

export type PipelineRemoval = { name: string; label: string; rule: string };

export type ToolPolicyPipelineResult<T> = { tools: T[]; removed: PipelineRemoval[]; warnings: PolicyWarning[] };

export function applyToolPolicyPipeline<T extends { name: string; pluginId?: string }>(
  tools: readonly T[],
  steps: readonly ToolPolicyPipelineStep[],
): ToolPolicyPipelineResult<T> {
  const pluginGroups = buildPluginToolGroups(tools);
  const knownNames = new Set([...CORE_TOOL_NAMES, ...tools.map((tool) => normalizeToolName(tool.name))]);
  const coreNames = new Set([
    ...CORE_TOOL_NAMES,
    ...tools.filter((tool) => !tool.pluginId).map((tool) => normalizeToolName(tool.name)),
  ]);
  const warnings: PolicyWarning[] = [];
  const removed: PipelineRemoval[] = [];
  let current = [...tools];
  for (const step of steps) {
    if (!step.policy) continue;
    const compiled = compileToolPolicy(step.policy, pluginGroups);
    const unknown = findUnknownEntries([...compiled.deny, ...(compiled.allow ?? [])], knownNames);
    if (unknown.length > 0) {
      warnings.push({
        code: "unknown_entry",
        source: step.label,
        entries: unknown,
        message: `${step.label} names no known tool: ${unknown.join(", ")}`,
      });
    }
    const analysis = step.stripPluginOnlyAllowlist
      ? analyzeAllowlist(compiled.allow, pluginGroups, coreNames)
      : undefined;
    if (analysis?.pluginOnly) {
      warnings.push({
        code: "plugin_only_allowlist",
        source: step.label,
        entries: analysis.pluginEntries,
        message: `${step.label} allows only plugin tools (${analysis.pluginEntries.join(", ")}); kept (fail closed), so core tools are removed at this step`,
      });
    }
    current = current.filter((tool) => {
      const verdict = evaluateCompiledPolicy(compiled, tool.name);
      if (!verdict.allowed) removed.push({ name: normalizeToolName(tool.name), label: step.label, rule: verdict.rule });
      return verdict.allowed;
    });
  }
  return { tools: current, removed, warnings };
}
