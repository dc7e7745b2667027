// A subagent never has more tools than the run that spawned it: the child's effective policy is intersected
// with the parent's allowed set. A tool the parent may not use is denied to the child with layer "parent",
// whatever the subagent layer says (subagents.tools.allow cannot widen past the parent).
import type { EffectiveToolPolicy } from "./effective-policy";
import { normalizeToolName } from "./names";
import type { ToolDecision } from "./types";

export const PARENT_RULE = "parent's allowed tools";

export function restrictToParent(policy: EffectiveToolPolicy, parentAllowed: Iterable<string>): EffectiveToolPolicy {
  const parent = new Set([...parentAllowed].map(normalizeToolName));
  const denied = new Map<string, ToolDecision>();
  for (const name of policy.allowedTools) {
    if (parent.has(name)) continue;
    const kept = policy.check(name);
    denied.set(
      name,
      Object.freeze({
        ...kept,
        allowed: false,
        effect: "deny",
        layer: "parent",
        rule: PARENT_RULE,
        source: "parent session",
        reason: `${name} is not available to the parent run, and a subagent never has more tools than its parent.`,
        errorCode: "POLICY_DENIED",
        capability: undefined,
      }),
    );
  }
  if (denied.size === 0) return policy;
  const allowedTools = Object.freeze(policy.allowedTools.filter((name) => !denied.has(name)));
  let tools: Readonly<Record<string, ToolDecision>> | undefined;
  return Object.freeze({
    ...policy,
    get tools() {
      tools ??= Object.freeze(
        Object.fromEntries(Object.entries(policy.tools).map(([name, d]) => [name, denied.get(name) ?? d])),
      );
      return tools;
    },
    allowedTools,
    check(name: string): ToolDecision {
      const decision = policy.check(name);
      return denied.get(decision.name) ?? decision;
    },
  });
}
