// Reading a policy context against a document: granted modes, sandboxing, error codes per layer.
import type { PolicyDocument } from "./document";
import { ownValue } from "./own";
import { TOOL_MODES, type LayerId, type PolicyContext, type PolicyErrorCode, type ToolMode } from "./types";

export function errorCodeForLayer(layer: LayerId): PolicyErrorCode {
  if (layer === "mode") return "MODE_DENIED";
  if (layer === "system") return "TOOL_NOT_AVAILABLE";
  return "POLICY_DENIED";
}

/** Modes the sender may run a session in: union of role, team and user grants. chat_safe is always reachable. */
export function resolveGrantedModes(
  context: Pick<PolicyContext, "roles" | "teamIds" | "senderId">,
  document: PolicyDocument,
): ToolMode[] {
  const { roles, teams, users } = document.modeGrants;
  const granted = new Set<ToolMode>(["chat_safe"]);
  for (const role of context.roles) for (const mode of ownValue(roles, role) ?? []) granted.add(mode);
  for (const team of context.teamIds ?? []) for (const mode of ownValue(teams, team) ?? []) granted.add(mode);
  for (const mode of ownValue(users, context.senderId) ?? []) granted.add(mode);
  return TOOL_MODES.filter((mode) => granted.has(mode));
}

/** The sender or one of their teams is listed in `sandbox.sandboxed` (the part of isSandboxed that needs no agent). */
export function isMemberSandboxed(
  context: Pick<PolicyContext, "teamIds" | "senderId">,
  document: PolicyDocument,
): boolean {
  const { teams, users } = document.sandbox.sandboxed;
  return (
    (context.senderId !== undefined && users.includes(context.senderId)) ||
    (context.teamIds ?? []).some((team) => teams.includes(team))
  );
}

export function isAgentSandboxed(agentId: string | undefined, document: PolicyDocument): boolean {
  return agentId !== undefined && document.sandbox.sandboxed.agents.includes(agentId);
}

export function isSandboxed(context: PolicyContext, document: PolicyDocument): boolean {
  return (
    context.sandboxed === true || isAgentSandboxed(context.agentId, document) || isMemberSandboxed(context, document)
  );
}
