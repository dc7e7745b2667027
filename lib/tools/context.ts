// What a tool's execute() receives as `options.context` from the agent loop. Tools never read the session,
// the user or limits from anywhere else, so the loop (after both gates) is the one place that decides them.
import { AppError } from "@/lib/errors";
import type { ToolExecuteOptions } from "@/lib/policy/types";
import type { SandboxConfig } from "./sandbox";
import type { EgressHostTarget } from "@/lib/config";
import type { AskedDomain, EgressGrants, NetworkSettings } from "@/lib/policy/egress";

export type ToolLimits = {
  maxReadBytes: number;
  maxWriteBytes: number;
};

export type ExecLimits = {
  timeoutMs: number;
  maxOutputBytes: number;
};

/** Data services the memory and sessions tools need; implemented over lib/db by the agent loop. */
export type ToolServices = {
  searchMemory(input: {
    query: string;
    limit: number;
  }): Promise<Array<{ id: string; title: string; snippet: string; source: "note" | "transcript" }>>;
  getMemory(input: { id: string }): Promise<{ id: string; title: string; content: string } | null>;
  listSessions(input: {
    limit: number;
  }): Promise<Array<{ id: string; title: string; mode: string; updatedAt: string }>>;
  getSessionHistory(input: {
    sessionId: string;
    limit: number;
  }): Promise<Array<{ role: string; content: string; createdAt: string }> | null>;
  /** Subagents (lib/runs/subagents.ts): only present inside an agent run, which owns the parent session. */
  spawnSubagent?(input: { task: string; label?: string }): Promise<SubagentResult>;
  listSubagents?(): Promise<
    Array<{ sessionId: string; title: string; depth: number; running: boolean; createdAt: string }>
  >;
  stopSubagent?(input: { sessionId: string }): Promise<{ stopped: boolean }>;
};

export type SubagentResult = {
  ok: boolean;
  sessionId: string;
  status: string;
  /** The child's final answer (its last assistant text), or null when it paused or failed. */
  answer: string | null;
  error?: string;
};

/**
 * Network by domain for sandboxed commands (lib/approvals/domains.ts implements it over lib/db): the policy's
 * exec.network, this member's grants, and the domain approvals a refused request becomes. Absent: no network.
 */
export type EgressServices = {
  settings: NetworkSettings;
  /** EGRESS_HOSTS: names mapped to fixed addresses. */
  hosts: ReadonlyMap<string, EgressHostTarget>;
  /** This member's domain grants, plus the allow-once domain approvals this command claims (each used once). */
  grantsForCommand(): Promise<EgressGrants>;
  /** One approval per unlisted domain (within the member's approval budget); null where none was made, with why. */
  requestDomainApprovals(input: {
    callId: string;
    asked: readonly AskedDomain[];
  }): Promise<Array<{ domain: string; approvalId: string | null; note?: string }>>;
};

export type ToolRunContext = {
  userId: string;
  sessionId: string;
  workspaceDir: string;
  limits: ToolLimits;
  exec: ExecLimits;
  services: ToolServices;
  /** A sandboxed session (the policy's sandbox layer applies); exec runs inside bubblewrap in every session. */
  sandboxed?: boolean;
  sandbox?: SandboxConfig;
  /** Set only by an admin's exec.host setting for this agent or team: exec runs on the host, never as root. */
  execHost?: { reason: string } | null;
  /**
   * Set for an exec call that runs because rules, grants or safe bins cover it (no owner approved this call):
   * every repository's metadata (.git) in the workspace is read-only for it, so a granted command cannot plant
   * a filter or hook in a repository's config for the next granted git command to run.
   */
  protectRepositories?: boolean;
  /** The member's budget for all of their commands together (a control group where one can be made). */
  budget?: { memoryBytes: number; processes: number; cpuPercent: number };
  /** Per-workspace disk quota and the largest file one command may write. */
  disk?: { workspaceQuotaBytes: number; maxFileBytes: number };
  /** Records a spawned process group against the running call (lib/runs kills it if the server dies). */
  trackProcess?: (pid: number) => void;
  egress?: EgressServices;
};

export function getToolContext(options: ToolExecuteOptions): ToolRunContext {
  const ctx = options.context as ToolRunContext | undefined;
  if (!ctx || typeof ctx.workspaceDir !== "string") {
    throw new AppError("INTERNAL", "tool called without a run context");
  }
  return ctx;
}
