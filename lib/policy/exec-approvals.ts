// Exec approval rules: the settings, and the decision whether a command needs an owner's approval. The shell
// analysis, the rule matching and the safe-bin profiles live in lib/exec (they read the file system and run a
// parser); this file only decides from their answers. The approval records live in the database layer.
import { z } from "zod";

export const EXEC_SECURITY_LEVELS = ["deny", "allowlist", "full"] as const;
export const EXEC_ASK_MODES = ["off", "on-miss", "always"] as const;
export type ExecSecurity = (typeof EXEC_SECURITY_LEVELS)[number];
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
    security: z.enum(EXEC_SECURITY_LEVELS).default("allowlist"),
    ask: z.enum(EXEC_ASK_MODES).default("on-miss"),
    /** What happens when no approval can be obtained (no owner answers before expiry). */
    askFallback: z.enum(EXEC_SECURITY_LEVELS).default("deny"),
    /**
     * Admin rules in the grant syntax: the words a command must start with, `*` at the end for "and any further
     * arguments" (`git status *`, `ls *`); a single word without `*` stands for `<word> *`. The first word is a bare
     * name or a path glob on the resolved executable. A rule never covers a command runner (lib/exec/runners.ts).
     */
    allowlist: z.array(z.string().trim().min(1)).default(() => []),
    safeBins: z.array(z.string().trim().min(1)).transform(normalizeSafeBins).default(() => [...DEFAULT_SAFE_BINS]),
    timeoutMs: z.number().int().positive().default(30_000),
    maxOutputBytes: z.number().int().positive().default(200_000),
    /** Per-workspace disk quota, checked before every command and file write. */
    workspaceQuotaBytes: z.number().int().positive().default(512 * 1024 * 1024),
    /** Largest file one command may write (RLIMIT_FSIZE inside the sandbox). */
    maxFileBytes: z.number().int().positive().default(64 * 1024 * 1024),
    /**
     * Host execution ("elevated"): commands of these agents and teams run outside the sandbox (still never as root,
     * with a clean environment, in the workspace). Off by default; saving it is audited like every policy change.
     */
    host: z
      .object({ agents: z.array(z.string().trim().min(1)).default(() => []), teams: z.array(z.string().trim().min(1)).default(() => []) })
      .strict()
      .prefault({}),
    /** Regular expressions (case-insensitive) whose matches are replaced by [redacted] in tool-call audit rows. */
    redact: z.array(RegexSource).default(() => [...DEFAULT_AUDIT_REDACTIONS]),
    /** apply_patch is off for other providers (reference); a prefix "openai" also covers "openai/<model>". */
    // "offline" too: the built-in scripted model emits patches in the same format.
    applyPatchProviders: z.array(z.string().trim().min(1)).default(() => ["openai", "offline"]),
  })
  .strict();
export type ExecSettings = z.output<typeof ExecSettingsSchema>;
export const DEFAULT_EXEC_SETTINGS: ExecSettings = Object.freeze(ExecSettingsSchema.parse({}));

/** The reference rule. A grant or an allowlist rule covering every part counts as allowlistSatisfied; `always` still asks. */
export function requiresExecApproval(params: { ask: ExecAsk; security: ExecSecurity; analysisOk: boolean; allowlistSatisfied: boolean }): boolean {
  if (params.ask === "always") return true;
  return params.ask === "on-miss" && params.security === "allowlist" && (!params.analysisOk || !params.allowlistSatisfied);
}

export type ExecVerdict = { action: "allow" | "deny" | "ask"; reason: string };

/** The per-call exec decision before any approval: deny outright, run, or ask an owner. */
export function decideExec(params: {
  settings: Pick<ExecSettings, "security" | "ask">;
  analysis: Pick<ShellAnalysis, "ok" | "reason">;
  coverage: { satisfied: boolean; reason?: string };
}): ExecVerdict {
  const { security, ask } = params.settings;
  if (security === "deny") return { action: "deny", reason: "exec is disabled (security: deny)" };
  const analysisOk = params.analysis.ok;
  const allowlistSatisfied = params.coverage.satisfied;
  const uncovered = params.coverage.reason ?? "a part of the command is not covered by a rule, a grant or a safe bin";
  if (requiresExecApproval({ ask, security, analysisOk, allowlistSatisfied })) {
    const why = ask === "always" ? "every command needs approval (ask: always)" : analysisOk ? uncovered : `the command is not plain: ${params.analysis.reason}`;
    return { action: "ask", reason: why };
  }
  if (security === "full") return { action: "allow", reason: "security: full" };
  if (analysisOk && allowlistSatisfied) return { action: "allow", reason: "every part is covered by a rule, a grant or a safe bin" };
  return { action: "deny", reason: analysisOk ? `${uncovered} (ask: off)` : `the command is not plain (ask: off): ${params.analysis.reason}` };
}

/** When an approval cannot be obtained (expired, no owner): askFallback decides, never more than it allows. */
export function resolveAskFallback(askFallback: ExecSecurity, params: { analysisOk: boolean; allowlistSatisfied: boolean }): "allow" | "deny" {
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
