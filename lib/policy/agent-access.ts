// Who may chat as which agent. An agent is a bundle of privileges (its own allow list, agent-scoped grants,
// exec.host.agents), so the rule fails closed: an agent without `usableBy` is usable by admins only, and an
// admin must name the roles, teams or users who may pick it. Admins may always use every agent: they can edit
// the document that defines it anyway.
import { z } from "zod";
import type { Role } from "./types";
import { ROLES } from "./types";

const entries = z.array(z.string().trim().min(1)).max(500);

export const AgentUsableBySchema = z
  .object({
    roles: z.array(z.enum(ROLES)).optional(),
    teams: entries.optional(),
    /** User ids or e-mail addresses (compared case-insensitively). */
    users: entries.optional(),
  })
  .strict();

export type AgentUsableBy = z.output<typeof AgentUsableBySchema>;
/** What the rule reads of a policy document (document.ts imports this file, so no import back). */
type AgentsOf = { agents: Readonly<Record<string, { usableBy?: AgentUsableBy }>> };
export type AgentUser = { id: string; email?: string | null; roles: readonly Role[]; teamIds: readonly string[] };

/** The reason an agent is usable by this user, or null when it is not. */
export function agentAccessReason(usableBy: AgentUsableBy | undefined, user: AgentUser): string | null {
  if (user.roles.includes("admin")) return "role admin";
  if (!usableBy) return null;
  const role = usableBy.roles?.find((r) => user.roles.includes(r));
  if (role) return `role ${role}`;
  const team = usableBy.teams?.find((t) => user.teamIds.includes(t));
  if (team) return `team ${team}`;
  const email = user.email?.toLowerCase();
  const named = usableBy.users?.find((u) => u === user.id || (email !== undefined && u.toLowerCase() === email));
  return named ? `user ${named}` : null;
}

export function isAgentUsableBy(document: AgentsOf, agentId: string, user: AgentUser): boolean {
  if (!Object.prototype.hasOwnProperty.call(document.agents, agentId)) return false;
  return agentAccessReason(document.agents[agentId]?.usableBy, user) !== null;
}

/** The ids of the agents this user may chat as, sorted (PostgreSQL's jsonb keeps no key order, so none is promised). */
export function agentsUsableBy(document: AgentsOf, user: AgentUser): string[] {
  return Object.entries(document.agents)
    .filter(([, agent]) => agentAccessReason(agent.usableBy, user) !== null)
    .map(([id]) => id)
    .sort();
}
