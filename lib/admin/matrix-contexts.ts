// Which contexts the admin matrix and its previews evaluate. Pure (no DB), so the editor and the tests share it.
// The matrix opens on a real person, the member with the most granted modes, instead of the bare role "member",
// whose coding column is only "not granted" by default. A change (a draft, an OpenClaw import) is previewed for the
// contexts it touches: each agent and team it names, so removing exec from one agent shows that agent's cell flip.
import { resolveGrantedModes, TOOL_MODES, type PolicyDocument, type Role, type ToolMode } from "@/lib/policy";
import { ownValue } from "@/lib/policy/own";
import { sameValue } from "./policy-diff";
import type { MatrixContextInput } from "./schemas";

/** What the matrix needs to know of a person (the admin directory's rows). */
export type ContextUser = {
  id: string;
  email: string;
  name?: string | null;
  roles: readonly Role[];
  teamIds: readonly string[];
  active?: boolean;
};

export type LabeledContext = { label: string; context: MatrixContextInput };

const PROVIDER = "offline";
const PRIVILEGE: Readonly<Record<Role, number>> = { member: 0, owner: 1, admin: 2 };

/**
 * The modes a person may use. Per-user grants are keyed by user id in the stored document and by e-mail in the
 * editor's (lib/admin/grant-emails.ts); either is read, so the answer is the same on both sides.
 */
export function grantedModesOf(user: ContextUser, document: PolicyDocument): ToolMode[] {
  const base = { roles: [...user.roles], teamIds: [...user.teamIds] };
  const granted = new Set([
    ...resolveGrantedModes({ ...base, senderId: user.id }, document),
    ...resolveGrantedModes({ ...base, senderId: user.email }, document),
  ]);
  return TOOL_MODES.filter((mode) => granted.has(mode));
}

export function contextOfUser(user: ContextUser): MatrixContextInput {
  return {
    roles: [...user.roles],
    ...(user.teamIds.length ? { teamIds: [...user.teamIds] } : {}),
    senderId: user.id,
    provider: PROVIDER,
  };
}

/** The role context with the most granted modes (the least privileged on a tie), for a directory with nobody in it. */
function roleContext(document: PolicyDocument): MatrixContextInput {
  const sets: Role[][] = [["member"], ["member", "owner"], ["member", "owner", "admin"]];
  const count = (roles: Role[]) => resolveGrantedModes({ roles }, document).length;
  const best = sets.reduce((a, b) => (count(b) > count(a) ? b : a));
  return { roles: best, provider: PROVIDER };
}

/**
 * The matrix's first context: the active person with the most granted modes; among equals the least privileged
 * (a plain member before an owner before an admin), then by e-mail. A member granted every mode is chosen over an
 * owner; with default grants (members: chat_safe only) the owner is, so the coding column is evaluated, not refused.
 */
export function defaultMatrixContext(document: PolicyDocument, users: readonly ContextUser[]): MatrixContextInput {
  const ranked = users
    .filter((u) => u.active !== false && u.roles.length > 0)
    .map((user) => ({
      user,
      modes: grantedModesOf(user, document).length,
      privilege: Math.max(...user.roles.map((r) => PRIVILEGE[r])),
    }))
    .sort((a, b) => b.modes - a.modes || a.privilege - b.privilege || a.user.email.localeCompare(b.user.email));
  return ranked[0] ? contextOfUser(ranked[0].user) : roleContext(document);
}

const list = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;

/** One line saying whose matrix this is: the person (or roles), teams, agent, provider and the modes granted. */
export function describeMatrixContext(
  context: MatrixContextInput,
  document: PolicyDocument,
  users: readonly ContextUser[],
): string {
  const roles = (context.roles ?? ["member"]) as Role[];
  const user = context.senderId ? users.find((u) => u.id === context.senderId) : undefined;
  const who = user
    ? `${user.name ? `${user.name} (${user.email})` : user.email}, roles ${list(roles)}`
    : `a person with roles ${list(roles)}`;
  const teams = context.teamIds?.length
    ? `, team${context.teamIds.length === 1 ? "" : "s"} ${list(context.teamIds)}`
    : "";
  const agent = context.agentId ? `, agent ${context.agentId}` : ", no agent";
  const provider = `, provider ${[context.provider ?? PROVIDER, context.model].filter(Boolean).join("/")}`;
  const extra = `${context.sandboxed ? ", sandboxed" : ""}${context.subagentDepth ? `, subagent depth ${context.subagentDepth}` : ""}`;
  const modes = grantedModesOf(
    { id: context.senderId ?? "", email: user?.email ?? context.senderId ?? "", roles, teamIds: context.teamIds ?? [] },
    document,
  );
  const missing = TOOL_MODES.filter((m) => !modes.includes(m));
  return `Context: ${who}${teams}${agent}${provider}${extra}. Granted ${list(modes)}${missing.length ? `; ${list(missing)} not granted (evaluated as chat_safe)` : ""}.`;
}

type Named = { id: string; touched: boolean };

/** Ids of a record in either document, the ones whose entry differs first. */
function namedIn(
  before: Readonly<Record<string, unknown>>,
  after: Readonly<Record<string, unknown>>,
  extra: Readonly<Record<string, boolean>> = {},
): Named[] {
  const ids = [...new Set([...Object.keys(before), ...Object.keys(after), ...Object.keys(extra)])];
  return ids
    .map((id) => ({ id, touched: extra[id] === true || !sameValue(ownValue(before, id), ownValue(after, id)) }))
    .sort((a, b) => Number(b.touched) - Number(a.touched) || a.id.localeCompare(b.id));
}

function flagsOf(ids: readonly string[], before: readonly string[], after: readonly string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const id of ids) out[id] = before.includes(id) !== after.includes(id);
  return out;
}

type PreviewArgs = { before: PolicyDocument; after: PolicyDocument; base: LabeledContext; limit?: number };
/** Agents and teams a preview did not compare (past its cap). */
export type LeftOut = { agents: string[]; teams: string[] };

/**
 * The contexts a change from `before` to `after` is previewed in: the base context (the matrix's), then the base
 * context with each agent, then with each team (added to the person's own), that either document names: the ones
 * the change touches first, at most `limit` in all. A team or agent is touched when its entry, its mode grants or
 * its sandboxing differ. `leftOut` names the agents and teams past the cap (touched first), so a preview can say what
 * it did not compare.
 */
export function previewPlan({ before, after, base, limit = 12 }: PreviewArgs): {
  contexts: LabeledContext[];
  leftOut: LeftOut;
} {
  const sandboxAgents = [...before.sandbox.sandboxed.agents, ...after.sandbox.sandboxed.agents];
  const sandboxTeams = [...before.sandbox.sandboxed.teams, ...after.sandbox.sandboxed.teams];
  const agents = namedIn(
    before.agents,
    after.agents,
    flagsOf(sandboxAgents, before.sandbox.sandboxed.agents, after.sandbox.sandboxed.agents),
  );
  const teamFlags = flagsOf(sandboxTeams, before.sandbox.sandboxed.teams, after.sandbox.sandboxed.teams);
  for (const team of namedIn(before.modeGrants.teams, after.modeGrants.teams))
    teamFlags[team.id] = teamFlags[team.id] === true || team.touched;
  const teams = namedIn(before.teams, after.teams, teamFlags);
  const ownTeams = base.context.teamIds ?? [];
  const candidates: Array<Named & LabeledContext & { kind: keyof LeftOut }> = [
    ...agents.map((a) => ({
      ...a,
      kind: "agents" as const,
      label: `${base.label} with agent ${a.id}`,
      context: { ...base.context, agentId: a.id },
    })),
    ...teams
      .filter((t) => !ownTeams.includes(t.id))
      .map((t) => ({
        ...t,
        kind: "teams" as const,
        label: `${base.label} in team ${t.id}`,
        context: { ...base.context, teamIds: [...ownTeams, t.id] },
      })),
  ];
  // Touched ones first across both kinds, each kind keeping its order.
  const ordered = [...candidates.filter((c) => c.touched), ...candidates.filter((c) => !c.touched)];
  const kept = Math.max(0, limit - 1);
  const rest = ordered.slice(kept);
  return {
    contexts: [base, ...ordered.slice(0, kept).map(({ label, context }) => ({ label, context }))],
    leftOut: {
      agents: rest.filter((c) => c.kind === "agents").map((c) => c.id),
      teams: rest.filter((c) => c.kind === "teams").map((c) => c.id),
    },
  };
}

export function previewContexts(args: PreviewArgs): LabeledContext[] {
  return previewPlan(args).contexts;
}

const SHOWN_NAMES = 10;

/** "3 more agents not compared: a, b and c; 1 more team not compared: ops", or undefined when none was left out. */
export function leftOutNote(leftOut: LeftOut): string | undefined {
  const part = (ids: readonly string[], one: string) => {
    if (ids.length === 0) return undefined;
    const shown = ids.slice(0, SHOWN_NAMES);
    const names = ids.length > SHOWN_NAMES ? `${shown.join(", ")} and ${ids.length - SHOWN_NAMES} others` : list(shown);
    return `${ids.length} more ${one}${ids.length === 1 ? "" : "s"} not compared: ${names}`;
  };
  const parts = [part(leftOut.agents, "agent"), part(leftOut.teams, "team")].filter(Boolean);
  return parts.length > 0 ? parts.join("; ") : undefined;
}

/** A short label for a context: the person's e-mail or the roles. */
export function contextLabel(context: MatrixContextInput, users: readonly ContextUser[]): string {
  const user = context.senderId ? users.find((u) => u.id === context.senderId) : undefined;
  return user ? user.email : (context.roles ?? ["member"]).join("+");
}
