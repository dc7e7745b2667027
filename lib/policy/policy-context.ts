// Reading a policy context against a document: granted modes, sandboxing, the cache key, error codes per layer.
import type { PolicyDocument } from "./document";
import { ownValue } from "./own";
import { TOOL_MODES, type LayerId, type PolicyContext, type PolicyErrorCode, type ToolMode } from "./types";

export function errorCodeForLayer(layer: LayerId): PolicyErrorCode {
  if (layer === "mode") return "MODE_DENIED";
  if (layer === "system") return "TOOL_NOT_AVAILABLE";
  return "POLICY_DENIED";
}

/** Modes the sender may run a session in: union of role, team and user grants. chat_safe is always reachable. */
export function resolveGrantedModes(context: Pick<PolicyContext, "roles" | "teamIds" | "senderId">, document: PolicyDocument): ToolMode[] {
  const { roles, teams, users } = document.modeGrants;
  const granted = new Set<ToolMode>(["chat_safe"]);
  for (const role of context.roles) for (const mode of ownValue(roles, role) ?? []) granted.add(mode);
  for (const team of context.teamIds ?? []) for (const mode of ownValue(teams, team) ?? []) granted.add(mode);
  for (const mode of ownValue(users, context.senderId) ?? []) granted.add(mode);
  return TOOL_MODES.filter((mode) => granted.has(mode));
}

export function isSandboxed(context: PolicyContext, document: PolicyDocument): boolean {
  if (context.sandboxed === true) return true;
  const { agents, teams, users } = document.sandbox.sandboxed;
  return (
    (context.agentId !== undefined && agents.includes(context.agentId)) ||
    (context.senderId !== undefined && users.includes(context.senderId)) ||
    (context.teamIds ?? []).some((team) => teams.includes(team))
  );
}

export function contextKey(context: PolicyContext): string {
  return [
    context.mode,
    [...context.roles].sort().join(","),
    context.senderIsOwner === true ? "1" : "0",
    context.provider ?? "",
    context.model ?? "",
    context.agentId ?? "",
    [...(context.teamIds ?? [])].sort().join(","),
    context.senderId ?? "",
    context.sandboxed === true ? "1" : "0",
    String(context.subagentDepth ?? 0),
  ].join("\u0000");
}

