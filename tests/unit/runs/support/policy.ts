// Effective policies over the real built-in registry and the real policy engine, for agent unit tests.
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import {
  DEFAULT_POLICY_DOCUMENT,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  resolveGrantedModes,
  type EffectiveToolPolicy,
  type PolicyDocument,
  type PolicyDocumentInput,
  type Role,
  type ToolMode,
} from "@/lib/policy";

export const OWNER: Role[] = ["member", "owner"];
export const MEMBER: Role[] = ["member"];

export function documentOf(input: PolicyDocumentInput): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(`test policy is invalid: ${JSON.stringify(parsed.issues)}`);
  return parsed.document;
}

/** The policy a run would get: an owner by default, so coding is granted and mode is not downgraded. */
export function policyFor(
  mode: ToolMode,
  {
    roles = OWNER,
    document = DEFAULT_POLICY_DOCUMENT,
    provider = "offline",
  }: { roles?: Role[]; document?: PolicyDocument; provider?: string } = {},
): {
  policy: EffectiveToolPolicy;
  grantedModes: ToolMode[];
} {
  const registry = getToolRegistry();
  const base = { roles, teamIds: [], senderId: "user-1" };
  const grantedModes = resolveGrantedModes(base, document);
  const policy = resolveEffectiveToolPolicy(
    { ...base, senderIsOwner: roles.includes("owner"), mode, provider },
    { document, tools: registry.meta() },
  );
  return { policy, grantedModes };
}

export { namesInToolingLayer } from "../../../support/prompt-names";

export const CHAT_SAFE_TOOLS = [
  "current_time",
  "memory_search",
  "memory_get",
  "ask_user",
  "sessions_list",
  "sessions_history",
  "sessions_spawn",
  "subagents",
];
export const CODING_ONLY_TOOLS = ["read", "write", "edit", "apply_patch", "exec"];
