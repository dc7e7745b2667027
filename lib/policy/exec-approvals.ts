// Exec approval rules: the settings, and the decision whether a command needs an owner's approval. The shell
// analysis, the rule matching and the safe-bin profiles live in lib/exec (they read the file system and run a
// parser); this file only decides from their answers. The approval records live in the database layer.
import { z } from "zod";
import { NetworkSettingsSchema } from "./egress";

/**
 * deny: no command runs. sandbox: every command runs in the sandbox without an owner, whatever its syntax; only an
 * escalation (host execution, an admin's ask rule) waits. allowlist: every part must be covered by a rule, a grant
 * or a safe bin, else an owner decides. full: every command runs.
 */
export const EXEC_SECURITY_LEVELS = ["deny", "sandbox", "allowlist", "full"] as const;
/** What an expired approval falls back to: sandbox is no fallback (an escalation that no owner saw is denied). */
export const EXEC_FALLBACK_LEVELS = ["deny", "allowlist", "full"] as const;
export const EXEC_ASK_MODES = ["off", "on-miss", "always"] as const;
export type ExecSecurity = (typeof EXEC_SECURITY_LEVELS)[number];
export type ExecFallback = (typeof EXEC_FALLBACK_LEVELS)[number];
export type ExecAsk = (typeof EXEC_ASK_MODES)[number];

export type ShellOperator = "&&" | "||" | ";" | "|";
export type ShellSegment = {
  /** The part's text as written. */
  raw: string;
  /** The words the shell passes to the program, after quote removal. */
  argv: string[];
  executable: string;
};
export type ShellAnalysis = {
  /** True only for plain word sequences joined by &&, ||, ; and |. */
  ok: boolean;
  reason?: string;
  segments: ShellSegment[];
  /** operators[i] joins segments[i] and segments[i + 1]. */
  operators: ShellOperator[];
};

/** Stdin-only filters with per-binary flag profiles (lib/exec/safe-bins.ts); sort, grep and jq are not among them. */
export const DEFAULT_SAFE_BINS: readonly string[] = Object.freeze(["cut", "uniq", "head", "tail", "tr", "wc"]);

/** Patterns whose matches are replaced by [redacted] in the audit rows of tool calls. */
export const DEFAULT_AUDIT_REDACTIONS: readonly string[] = Object.freeze([
  "(?<=\\b(?:api[_-]?key|token|secret|password|passwd|authorization)[\"']?\\s*[:=]\\s*[\"']?)[^\\s\"',;]+",
  "\\bBearer\\s+[A-Za-z0-9._~+/=-]+",
  "\\b(?:sk|pk|ghp|gho|xox[abp])[-_][A-Za-z0-9_-]{10,}",
]);

const RegexSource = z
  .string()
  .min(1)
  .refine((source) => {
    try {
      new RegExp(source, "gi");
      return true;
    } catch {
      return false;
    }
  }, "not a valid regular expression");

/** Safe-bin names are matched against executable basenames: stored lower-cased and once each ("JQ" and "jq" are one
 * entry; an upper-case executable never matches a folded entry, so folding can only narrow). */
export function normalizeSafeBins(bins: readonly string[]): string[] {
  return [...new Set(bins.map((bin) => bin.trim().toLowerCase()).filter((bin) => bin.length > 0))];
}

export const ExecSettingsSchema = z
  .object({
    // The default of new installs. A stored document of version 1 without a security keeps "allowlist", the
    // default it was written under (upgradePolicyInput in document.ts): an install changes mode only by an admin's save.
    security: z.enum(EXEC_SECURITY_LEVELS).default("sandbox"),
    ask: z.enum(EXEC_ASK_MODES).default("on-miss"),
    /** What happens when no approval can be obtained (no owner answers before expiry); never used in sandbox mode. */
    askFallback: z.enum(EXEC_FALLBACK_LEVELS).default("deny"),
    /**
     * Admin rules in the grant syntax: the words a command must start with, `*` at the end for "and any further
     * arguments" (`git status *`, `ls *`); a single word without `*` stands for `<word> *`. The first word is a bare
     * name or a path glob on the resolved executable. A rule never covers a command runner (lib/exec/runners.ts).
     */
    allowlist: z.array(z.string().trim().min(1)).default(() => []),
    /**
     * Sandbox mode: commands a part of which matches one of these rules (same syntax as the allowlist) wait for an
     * owner. None by default: what a command deletes or overwrites in the workspace can be restored. A command the
     * analysis cannot split waits too while any ask rule exists (it might hide a match).
     */
    askRules: z.array(z.string().trim().min(1)).default(() => []),
    safeBins: z
      .array(z.string().trim().min(1))
      .transform(normalizeSafeBins)
      .default(() => [...DEFAULT_SAFE_BINS]),
    timeoutMs: z.number().int().positive().default(30_000),
    maxOutputBytes: z.number().int().positive().default(200_000),
    /** Per-workspace disk quota, checked before every command and file write. */
    workspaceQuotaBytes: z
      .number()
      .int()
      .positive()
      .default(512 * 1024 * 1024),
    /**
     * Per member (all of one member's commands together, a control group: lib/tools/cgroups.ts): memory, processes
     * and CPU (percent of one core). Where no control group can be made, the per-process rlimits alone apply.
     */
    memberMemoryBytes: z
      .number()
      .int()
      .min(16 * 1024 * 1024)
      .default(2 * 1024 * 1024 * 1024),
    memberProcesses: z.number().int().min(8).max(100_000).default(128),
    memberCpuPercent: z.number().int().min(5).max(10_000).default(100),
    /** Largest file one command may write (RLIMIT_FSIZE inside the sandbox). */
    maxFileBytes: z
      .number()
      .int()
      .positive()
      .default(64 * 1024 * 1024),
    /**
     * Host execution ("elevated"): commands of these agents and teams run outside the sandbox (still never as root,
     * with a clean environment, in the workspace). Off by default; saving it is audited like every policy change.
     */
    host: z
      .object({
        agents: z.array(z.string().trim().min(1)).default(() => []),
        teams: z.array(z.string().trim().min(1)).default(() => []),
      })
      .strict()
      .prefault({}),
    /** Regular expressions (case-insensitive) whose matches are replaced by [redacted] in tool-call audit rows. */
    redact: z.array(RegexSource).default(() => [...DEFAULT_AUDIT_REDACTIONS]),
    /** apply_patch is off for other providers (reference); a prefix "openai" also covers "openai/<model>". */
    // "offline" too: the built-in scripted model emits patches in the same format.
    applyPatchProviders: z.array(z.string().trim().min(1)).default(() => ["openai", "offline"]),
    /**
     * Network by domain (lib/policy/egress.ts): none by default; listed domains through a per-command proxy, an
     * unlisted one asks an owner. Added after version 2 without a version bump: absent means "no domain listed".
     */
    network: NetworkSettingsSchema.prefault({}),
  })
  .strict();
export type ExecSettings = z.output<typeof ExecSettingsSchema>;
export const DEFAULT_EXEC_SETTINGS: ExecSettings = Object.freeze(ExecSettingsSchema.parse({}));

/** The reference rule. A grant or an allowlist rule covering every part counts as allowlistSatisfied; `always` still asks. */
export function requiresExecApproval(params: {
  ask: ExecAsk;
  security: ExecSecurity;
  analysisOk: boolean;
  allowlistSatisfied: boolean;
}): boolean {
  if (params.ask === "always") return true;
  return (
    params.ask === "on-miss" && params.security === "allowlist" && (!params.analysisOk || !params.allowlistSatisfied)
  );
}

/** Which security mode decided, named in every reason (the approval card and the audit row show it). */
export type ExecVerdict = { action: "allow" | "deny" | "ask"; reason: string; mode: ExecSecurity };

/** What makes a sandbox-mode command wait for an owner: each entry says why (host execution, an ask rule). */
export type ExecEscalations = { host?: string | null; askRule?: string | null };

/** The per-call exec decision before any approval: deny outright, run, or ask an owner. */
export function decideExec(params: {
  settings: Pick<ExecSettings, "security" | "ask">;
  analysis: Pick<ShellAnalysis, "ok" | "reason">;
  coverage: { satisfied: boolean; reason?: string };
  escalations?: ExecEscalations;
}): ExecVerdict {
  const { security, ask } = params.settings;
  const verdict = (action: ExecVerdict["action"], reason: string, mode: ExecSecurity = security): ExecVerdict => ({
    action,
    reason: `${mode} mode: ${reason}`,
    mode,
  });
  if (security === "deny") return verdict("deny", "exec is disabled (security: deny)");
  if (security === "sandbox") {
    const host = params.escalations?.host;
    // Host execution leaves the sandbox: there the allowlist rules apply, exactly as in allowlist mode.
    if (host) {
      const onHost = decideExec({ ...params, settings: { security: "allowlist", ask }, escalations: {} });
      return {
        action: onHost.action,
        reason: `sandbox mode: the command would run on the host (${host}), where the allowlist decides: ${onHost.reason}`,
        mode: "sandbox",
      };
    }
    if (ask === "always") return verdict("ask", "every command needs approval (ask: always)");
    const rule = params.escalations?.askRule;
    if (rule) return ask === "off" ? verdict("deny", `${rule} (ask: off)`) : verdict("ask", rule);
    return verdict("allow", "runs in the sandbox (no network, only the workspace writable)");
  }
  const analysisOk = params.analysis.ok;
  const allowlistSatisfied = params.coverage.satisfied;
  const uncovered = params.coverage.reason ?? "a part of the command is not covered by a rule, a grant or a safe bin";
  if (requiresExecApproval({ ask, security, analysisOk, allowlistSatisfied })) {
    const why =
      ask === "always"
        ? "every command needs approval (ask: always)"
        : analysisOk
          ? uncovered
          : `the command is not plain: ${params.analysis.reason}`;
    return verdict("ask", why);
  }
  if (security === "full") return verdict("allow", "security: full");
  if (analysisOk && allowlistSatisfied)
    return verdict("allow", "every part is covered by a rule, a grant or a safe bin");
  return verdict(
    "deny",
    analysisOk ? `${uncovered} (ask: off)` : `the command is not plain (ask: off): ${params.analysis.reason}`,
  );
}

/**
 * When an approval cannot be obtained (expired, no owner): askFallback decides, never more than it allows. In
 * sandbox mode every request is an escalation, and an escalation no owner saw is denied, whatever askFallback says.
 */
export function resolveAskFallback(
  askFallback: ExecFallback,
  params: { security?: ExecSecurity; analysisOk: boolean; allowlistSatisfied: boolean },
): "allow" | "deny" {
  if (params.security === "sandbox") return "deny";
  if (askFallback === "full") return "allow";
  if (askFallback === "allowlist") return params.analysisOk && params.allowlistSatisfied ? "allow" : "deny";
  return "deny";
}

export const APPROVAL_DECISIONS = ["allow-once", "allow-always", "deny"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];
export function isApprovalDecision(value: unknown): value is ApprovalDecision {
  return typeof value === "string" && (APPROVAL_DECISIONS as readonly string[]).includes(value);
}

/** Resolved approvals stay readable this long, so a waitDecision that arrives just after the decision still sees it. */
export const RESOLVED_ENTRY_GRACE_MS = 15_000;
