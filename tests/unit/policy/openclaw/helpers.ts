// Shared setup for the cases ported from OpenClaw's suites: every built-in tool name registered in both modes, so a
// case observes the layer under test and nothing else.
import {
  CORE_TOOL_NAMES,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentInput,
  type ToolMeta,
} from "@/lib/policy";

export const ALL_TOOLS: ToolMeta[] = [
  ...[...CORE_TOOL_NAMES].map((name): ToolMeta => ({ name, allowedModes: ["chat_safe", "coding"] })),
  { name: "lobster", allowedModes: ["chat_safe", "coding"], pluginId: "lobster" },
  { name: "workflow_tool", allowedModes: ["chat_safe", "coding"], pluginId: "lobster" },
];

export function parse(input: PolicyDocumentInput = {}): PolicyDocument {
  const parsed = parsePolicyDocument({
    ...input,
    system: { mcp: { enabled: true, allowedServers: ["lobster"] }, ...input.system },
    exec: { applyPatchProviders: ["openai"], ...input.exec },
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}

export function policyFor(input: PolicyDocumentInput, context: Partial<PolicyContext> = {}) {
  const context_: PolicyContext = {
    roles: ["owner"],
    senderIsOwner: true,
    mode: "coding",
    provider: "openai",
    ...context,
  };
  return resolveEffectiveToolPolicy(context_, { document: parse(input), tools: ALL_TOOLS });
}

/** Whether `name` survives every layer for the given document and context. */
export function allows(input: PolicyDocumentInput, context: Partial<PolicyContext>, name: string): boolean {
  return policyFor(input, context).check(name).allowed;
}
