import "server-only";
// Everything a run needs, resolved once per turn (or per resume): the session, the effective policy (the one
// call every gate, the prompt and the schemas share), the tools the model may see, and the tool context.
import path from "node:path";
import { jsonSchema, tool as aiTool, type ToolSet, type UIMessageChunk } from "ai";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import {
  agentAccessReason,
  isSandboxed,
  resolveEffectiveToolPolicy,
  type AgentConfig,
  resolveGrantedModes,
  type EffectiveToolPolicy,
  type PolicyContext,
  type Role,
  type ToolMode,
  type ToolSchema,
} from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { listActiveGrants } from "@/lib/db/allowlist";
import { compileAllowlist, grantRules } from "@/lib/exec/decide";
import type { SourcedRule } from "@/lib/exec/rules";
import { loadShellParser } from "@/lib/exec/shell-parser";
import { findOwnedSession, type SessionRow } from "@/lib/db/sessions";
import type { RunStatus } from "@/lib/db/runs";
import type { ToolRunContext } from "@/lib/tools/context";
import type { SandboxConfig } from "@/lib/tools/sandbox";
import { ToolHooks } from "./hooks";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import { buildSystemPrompt } from "./prompt";
import { agentModelNote, agentOf } from "./agents";
import { createToolServices } from "./services";
import { getSessionMode } from "./session-mode";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { limitToAncestors } from "./parent-policy";
import { refreshMcpTools } from "@/lib/tools/mcp";
import { publicErrorMessage } from "@/lib/public-error";
import { createEgressServices } from "@/lib/approvals/domains";
import { rememberPolicyVersion } from "@/lib/ops/tracing";

/** The model steps one turn may take (the engine stops there; the prompt says so). */
export const MAX_TURN_STEPS = 8;

export type TurnUser = { id: string; email?: string | null; roles: Role[]; teamIds: string[] };
export type ModelChoice = { model: LanguageModelV3; info: { provider: string; model?: string } };
export type DurableApprovals = { execRules: SourcedRule[]; tools: Set<string> };

export type TurnEnv = {
  user: TurnUser;
  model: ModelChoice;
  emit: (chunk: UIMessageChunk) => void;
  abortSignal?: AbortSignal;
  hooks?: ToolHooks;
  workspaceRoot: string;
  execLimits?: { timeoutMs: number; maxOutputBytes: number };
  /** bubblewrap settings for sandboxed exec (tests point bwrapPath at a missing binary to see the refusal). */
  sandbox?: SandboxConfig;
  /** An outside client's run of one call, beside others in its session (lib/runs/call-pipeline.ts). */
  sharedRun?: boolean;
};

export type Turn = {
  env: TurnEnv;
  session: SessionRow;
  runId: string;
  /** Set once an outcome ended the run itself: an outside client's run ends with its call's result (calls.ts). */
  ended?: RunStatus;
  mode: ToolMode;
  policy: EffectiveToolPolicy | null;
  policyError?: string;
  /** The session's agent as the policy defines it now (persona, model); null without one. */
  agent: (AgentConfig & { id: string }) | null;
  /** Set when the agent names a model that is not configured, so the configured one is used. */
  modelNote: string | null;
  grantedModes: ToolMode[];
  registry: ReturnType<typeof getToolRegistry>;
  system: string;
  sdkTools: ToolSet;
  hooks: ToolHooks;
  toolContext: ToolRunContext;
  durable: DurableApprovals;
};

function toSdkTools(schemas: ToolSchema[]): ToolSet {
  // No execute: the SDK only reports calls; the loop runs them after the execution gate. The schemas are the
  // registry's (normalised once per tool and cached), for exactly the tools the prompt lists.
  return Object.fromEntries(
    schemas.map(({ function: f }) => [
      f.name,
      aiTool({ description: f.description, inputSchema: jsonSchema(f.parameters as never) }),
    ]),
  );
}

/** Host execution is an admin's explicit per-agent or per-team setting; the reason is audited with each command. */
function hostExecution(
  host: { agents: string[]; teams: string[] },
  agentId: string | null,
  teamIds: readonly string[],
) {
  if (agentId && host.agents.includes(agentId)) return { reason: `exec.host.agents: ${agentId}` };
  const team = teamIds.find((t) => host.teams.includes(t));
  return team ? { reason: `exec.host.teams: ${team}` } : null;
}

/** `known`: the session's row as the caller read it in this request (the owner's, not deleted), spared a second read. */
export async function prepareTurn(env: TurnEnv, sessionId: string, runId: string, known?: SessionRow): Promise<Turn> {
  const owned = known && known.id === sessionId && known.ownerId === env.user.id && known.deletedAt === null;
  const session = owned ? known : await findOwnedSession({ sessionId, ownerId: env.user.id });
  if (!session) throw new AppError("NOT_FOUND", "no such session");
  const registry = getToolRegistry();
  let policy: EffectiveToolPolicy | null = null;
  let policyError: string | undefined;
  let grantedModes: ToolMode[] = ["chat_safe"];
  let durable: DurableApprovals = { execRules: [], tools: new Set() };
  let agent: Turn["agent"] = null;
  try {
    const { document, version } = await loadPolicyDocument();
    if (session.agentId) {
      // Checked on every turn, not only at creation: an admin who takes an agent away takes it away now.
      agent = agentOf(document, session.agentId);
      if (!agent)
        throw new AppError(
          "FORBIDDEN",
          `the agent "${session.agentId}" of this chat no longer exists; start a new chat`,
        );
      if (agentAccessReason(agent.usableBy, env.user) === null)
        throw new AppError("FORBIDDEN", `you may no longer use the agent "${session.agentId}"; start a new chat`);
    }
    refreshMcpTools(document, registry); // never waits on a server: discovery and health run in the background
    const base = { roles: env.user.roles, teamIds: env.user.teamIds, senderId: env.user.id };
    grantedModes = resolveGrantedModes(base, document);
    // The row just read (findOwnedSession) carries the mode: no second read of the same row.
    const { mode } = await getSessionMode({ sessionId, grantedModes, read: async () => session.mode });
    const context: PolicyContext = {
      ...base,
      senderIsOwner: env.user.roles.includes("owner"),
      mode,
      provider: env.model.info.provider,
      model: env.model.info.model,
      agentId: session.agentId ?? undefined,
      subagentDepth: session.depth,
    };
    // Said explicitly (not only derived inside the engine) so the tool context below knows exec must be sandboxed.
    context.sandboxed = isSandboxed(context, document);
    const resolve = (c: PolicyContext) => resolveEffectiveToolPolicy(c, { document, tools: registry.meta() });
    policy = resolve(context);
    // A subagent never has more tools than its ancestors (a parent-denied tool is denied with layer "parent").
    if (session.parentId) policy = await limitToAncestors({ session, policy, context, grantedModes, resolve });
    // Grants in force for this requester only (their own, their teams', this agent's, everyone's), not expired.
    const [grants] = await Promise.all([
      listActiveGrants({ userId: env.user.id, teamIds: env.user.teamIds, agentId: session.agentId }),
      loadShellParser(),
    ]);
    rememberPolicyVersion(policy, version);
    durable = {
      execRules: [...compileAllowlist(policy.exec.allowlist), ...grantRules(grants.filter((g) => g.kind === "exec"))],
      tools: new Set(grants.filter((g) => g.kind === "tool").map((g) => g.pattern)),
    };
  } catch (error) {
    // Fail closed: without a readable policy the model gets no tools and every call is refused.
    policy = null;
    policyError = publicErrorMessage(error, { event: "policy_unavailable" }).message;
    log("error", "policy_unavailable", { sessionId, error: policyError });
  }
  const mode = policy?.mode ?? "chat_safe";
  const limits = {
    maxReadBytes: policy?.limits.fs.maxReadBytes ?? 0,
    maxWriteBytes: policy?.limits.fs.maxWriteBytes ?? 0,
  };
  const exec = env.execLimits ?? {
    timeoutMs: policy?.exec.timeoutMs ?? 30_000,
    maxOutputBytes: policy?.exec.maxOutputBytes ?? 200_000,
  };
  const disk = {
    workspaceQuotaBytes: policy?.exec.workspaceQuotaBytes ?? 0,
    maxFileBytes: policy?.exec.maxFileBytes ?? 0,
  };
  // The prompt states the very limits the tool context enforces (one source for both).
  const prompt = policy
    ? buildSystemPrompt({
        mode,
        policy,
        registry,
        agent: agent ?? undefined,
        limits: { ...limits, exec, disk, maxSteps: MAX_TURN_STEPS },
      })
    : { system: "No tools are available: the tool policy could not be read.", tools: [] };
  const turn: Turn = {
    env,
    session,
    runId,
    mode,
    policy,
    policyError,
    agent,
    modelNote: agentModelNote(agent, env.model.info),
    grantedModes,
    registry,
    system: prompt.system,
    sdkTools: toSdkTools(policy ? registry.getToolsSchemaFor(policy) : []),
    hooks: env.hooks ?? new ToolHooks(),
    durable,
    toolContext: {
      userId: env.user.id,
      sessionId,
      workspaceDir: path.join(env.workspaceRoot, env.user.id),
      limits,
      exec,
      services: createToolServices({ userId: env.user.id }),
      // Fail closed: without a readable policy nothing runs anyway; with one, the document decides.
      sandboxed: policy?.sandboxed ?? true,
      sandbox: env.sandbox,
      execHost: policy ? hostExecution(policy.exec.host, session.agentId, env.user.teamIds) : null,
      disk,
      ...(policy
        ? {
            budget: {
              memoryBytes: policy.exec.memberMemoryBytes,
              processes: policy.exec.memberProcesses,
              cpuPercent: policy.exec.memberCpuPercent,
            },
          }
        : {}),
      // Network by domain: this member's grants and domain approvals (no run id: the refused call is never resumed).
      ...(policy
        ? {
            egress: createEgressServices({
              userId: env.user.id,
              teamIds: env.user.teamIds,
              agentId: session.agentId ?? null,
              sessionId,
              runId: null,
              settings: policy.exec.network,
            }),
          }
        : {}),
    },
  };
  return turn;
}
