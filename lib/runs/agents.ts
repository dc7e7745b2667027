import "server-only";
// Agents as people pick them: which ones this user may chat as, and what a chat as one shows and uses. The rule
// is the policy's (lib/policy/agent-access.ts); the agent of a session is fixed when the session is created.
import { agentAccessReason, agentsUsableBy, type AgentConfig, type PolicyDocument } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import type { CurrentUser } from "@/lib/auth/guards";
import { loadPolicyDocument } from "@/lib/tools/policy-source";

export type AgentSummary = {
  id: string;
  name: string;
  description: string | null;
  model: string | null;
  starters: string[];
};

export function agentOf(document: PolicyDocument, agentId: string): (AgentConfig & { id: string }) | null {
  if (!Object.prototype.hasOwnProperty.call(document.agents, agentId)) return null;
  const agent = document.agents[agentId];
  return agent ? { ...agent, id: agentId } : null;
}

function summary(agent: AgentConfig & { id: string }): AgentSummary {
  // The persona's first line says what the agent is for; the rest stays server-side (it is the prompt).
  const first =
    agent.persona
      ?.split("\n")
      .find((l) => l.trim() !== "")
      ?.trim() ?? null;
  return {
    id: agent.id,
    name: agent.name,
    description: first && first.length > 160 ? `${first.slice(0, 159)}…` : first,
    model: agent.model ?? null,
    starters: agent.starters ?? [],
  };
}

export async function listUsableAgents({ user }: { user: CurrentUser }): Promise<AgentSummary[]> {
  const { document } = await loadPolicyDocument();
  // By name, as people scan a list (the document's key order does not survive PostgreSQL's jsonb).
  return agentsUsableBy(document, user)
    .map((id) => summary(agentOf(document, id)!))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
}

/** The agent a new session is created as: unknown → 404, not usable by this user → 403. */
export async function requireUsableAgent({
  user,
  agentId,
}: {
  user: CurrentUser;
  agentId: string;
}): Promise<AgentSummary> {
  const { document } = await loadPolicyDocument();
  const agent = agentOf(document, agentId);
  if (!agent) throw new AppError("NOT_FOUND", `no agent "${agentId}"`, { agentId });
  if (agentAccessReason(agent.usableBy, user) === null)
    throw new AppError("FORBIDDEN", `you may not use the agent "${agentId}"; ask an admin to add you to its usableBy`, {
      agentId,
    });
  return summary(agent);
}

/** For a session's JSON: the agent as the document defines it now (null when it is gone from the document). */
export async function describeSessionAgent(
  agentId: string | null,
): Promise<(AgentSummary & { available: boolean }) | null> {
  if (!agentId) return null;
  try {
    const { document } = await loadPolicyDocument();
    const agent = agentOf(document, agentId);
    if (agent) return { ...summary(agent), available: true };
  } catch {
    // An unreadable policy: the chat still opens (fail closed happens at the turn).
  }
  return { id: agentId, name: agentId, description: null, model: null, starters: [], available: false };
}

/**
 * A chat as an agent runs on a configured model its `model` names (lib/runs/model-choice.ts). A stored agent whose
 * `model` names none (the configuration changed since it was saved) runs on the default one, and the turn says so.
 */
export function agentModelNote(agent: AgentConfig | null, info: { provider: string; model?: string }): string | null {
  const wanted = agent?.model?.trim().toLowerCase();
  if (!wanted) return null;
  const provider = info.provider.toLowerCase();
  const full = info.model ? `${provider}/${info.model.toLowerCase()}` : provider;
  if (wanted === provider || wanted === full || wanted === info.model?.toLowerCase()) return null;
  return `agent model "${agent!.model}" is not configured; using ${full}`;
}
