// Exec approval rules: settings, allowlist matching (path globs + safe bins) and the decision whether a command
// needs an owner's approval. The approval records and their state machine live in the database layer.
import { z } from "zod";
import type { ShellAnalysis, ShellSegment } from "./shell-analysis";

export const EXEC_SECURITY_LEVELS = ["deny", "allowlist", "full"] as const;
export const EXEC_ASK_MODES = ["off", "on-miss", "always"] as const;
export type ExecSecurity = (typeof EXEC_SECURITY_LEVELS)[number];
export type ExecAsk = (typeof EXEC_ASK_MODES)[number];

/** Read-only filters that only see stdin; usable without an allowlist entry when given no path arguments. */
export const DEFAULT_SAFE_BINS: readonly string[] = Object.freeze(["jq", "grep", "cut", "sort", "uniq", "head", "tail", "tr", "wc"]);

export const ExecSettingsSchema = z
  .object({
    security: z.enum(EXEC_SECURITY_LEVELS).default("allowlist"),
    ask: z.enum(EXEC_ASK_MODES).default("on-miss"),
    /** What happens when no approval can be obtained (no owner answers before expiry). */
    askFallback: z.enum(EXEC_SECURITY_LEVELS).default("deny"),
    /** Executable path globs: `*` within a path segment, `**` across segments, `?` one character. */
    allowlist: z.array(z.string().trim().min(1)).default(() => []),
    safeBins: z.array(z.string().trim().min(1)).default(() => [...DEFAULT_SAFE_BINS]),
    timeoutMs: z.number().int().positive().default(30_000),
    maxOutputBytes: z.number().int().positive().default(200_000),
    /** apply_patch is off for other providers (reference); a prefix "openai" also covers "openai/<model>". */
    // "offline" too: the built-in scripted model emits patches in the same format.
    applyPatchProviders: z.array(z.string().trim().min(1)).default(() => ["openai", "offline"]),
  })
  .strict();
export type ExecSettings = z.output<typeof ExecSettingsSchema>;
export const DEFAULT_EXEC_SETTINGS: ExecSettings = Object.freeze(ExecSettingsSchema.parse({}));

/** The reference rule, plus a durable (allow-always) approval standing in for an allowlist hit. `always` still asks. */
export function requiresExecApproval(params: {
  ask: ExecAsk;
  security: ExecSecurity;
  analysisOk: boolean;
  allowlistSatisfied: boolean;
  durableApproval?: boolean;
}): boolean {
  if (params.ask === "always") return true;
  if (params.durableApproval === true) return false;
  return params.ask === "on-miss" && params.security === "allowlist" && (!params.analysisOk || !params.allowlistSatisfied);
}

const globCache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  let regex = globCache.get(glob);
  if (regex) return regex;
  let source = "";
  for (let i = 0; i < glob.length; i += 1) {
    const ch = glob[i] as string;
    if (ch === "*" && glob[i + 1] === "*") {
      // "a/**/b" must also match "a/b": the slash after ** is optional.
      const slash = glob[i + 2] === "/";
      source += slash ? "(?:.*/)?" : ".*";
      i += slash ? 2 : 1;
    } else if (ch === "*") source += "[^/]*";
    else if (ch === "?") source += "[^/]";
    else source += ch.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  regex = new RegExp(`^${source}$`);
  globCache.set(glob, regex);
  return regex;
}

export function expandHome(path: string, homeDir?: string): string {
  if (!homeDir) return path;
  if (path === "~") return homeDir;
  return path.startsWith("~/") ? `${homeDir.replace(/\/$/, "")}${path.slice(1)}` : path;
}

export function matchesPathGlob(path: string, glob: string, homeDir?: string): boolean {
  return globToRegExp(expandHome(glob, homeDir)).test(expandHome(path, homeDir));
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

function looksLikePath(arg: string): boolean {
  const value = arg.includes("=") && arg.startsWith("-") ? arg.slice(arg.indexOf("=") + 1) : arg;
  return value.includes("/") || value.startsWith("~") || value === "." || value === "..";
}

/** A safe bin only filters stdin: any path-like argument could make it read a file, so it then needs the allowlist. */
export function isSafeBinUsage(segment: ShellSegment, safeBins: readonly string[]): boolean {
  if (!safeBins.includes(basename(segment.executable))) return false;
  return !segment.argv.slice(1).some(looksLikePath);
}

export type SegmentAllowlistResult = { executable: string; resolvedPath?: string; satisfied: boolean; match?: string };

export type ExecAllowlistResult = { satisfied: boolean; segments: SegmentAllowlistResult[] };

/** Every segment must be covered: a path glob on its resolved executable, a bare-name entry, or a safe bin. */
export function evaluateExecAllowlist(params: {
  analysis: ShellAnalysis;
  allowlist: readonly string[];
  safeBins?: readonly string[];
  /** PATH lookup is the caller's (impure) job; without it a bare name only matches a bare-name entry. */
  resolveExecutable?: (name: string) => string | undefined;
  homeDir?: string;
}): ExecAllowlistResult {
  const safeBins = params.safeBins ?? DEFAULT_SAFE_BINS;
  if (!params.analysis.ok) return { satisfied: false, segments: [] };
  const segments = params.analysis.segments.map((segment): SegmentAllowlistResult => {
    const executable = segment.executable;
    const resolvedPath = executable.includes("/") ? executable : params.resolveExecutable?.(executable);
    for (const pattern of params.allowlist) {
      const hit = pattern.includes("/")
        ? resolvedPath !== undefined && matchesPathGlob(resolvedPath, pattern, params.homeDir)
        : !executable.includes("/") && globToRegExp(pattern).test(executable);
      if (hit) return { executable, resolvedPath, satisfied: true, match: pattern };
    }
    if (isSafeBinUsage(segment, safeBins)) return { executable, resolvedPath, satisfied: true, match: `safeBin:${basename(executable)}` };
    return { executable, resolvedPath, satisfied: false };
  });
  return { satisfied: segments.length > 0 && segments.every((s) => s.satisfied), segments };
}

export type ExecVerdict = { action: "allow" | "deny" | "ask"; reason: string };

/** The per-call exec decision before any approval: deny outright, run, or ask an owner. */
export function decideExec(params: {
  settings: Pick<ExecSettings, "security" | "ask">;
  analysis: ShellAnalysis;
  allowlist: ExecAllowlistResult;
  durableApproval?: boolean;
}): ExecVerdict {
  const { security, ask } = params.settings;
  if (security === "deny") return { action: "deny", reason: "exec is disabled (security: deny)" };
  const analysisOk = params.analysis.ok;
  const allowlistSatisfied = params.allowlist.satisfied;
  const needsApproval = requiresExecApproval({ ask, security, analysisOk, allowlistSatisfied, durableApproval: params.durableApproval });
  if (needsApproval) {
    const why = ask === "always" ? "every command needs approval (ask: always)" : analysisOk ? "an executable is not on the allowlist" : `the command could not be analysed: ${params.analysis.reason}`;
    return { action: "ask", reason: why };
  }
  if (security === "full" || params.durableApproval === true) return { action: "allow", reason: security === "full" ? "security: full" : "an allow-always approval covers this command" };
  if (analysisOk && allowlistSatisfied) return { action: "allow", reason: "every executable is on the allowlist or a safe bin" };
  return {
    action: "deny",
    reason: analysisOk ? "an executable is not on the allowlist (ask: off)" : `the command could not be analysed (ask: off): ${params.analysis.reason}`,
  };
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
/** Upper bound of rewritten-parameter entries kept per call id. */
export const MAX_TRACKED_ADJUSTED_PARAMS = 1_024;

export type BeforeToolCallHookResult = { params?: Record<string, unknown>; block?: boolean; blockReason?: string };

/** Hooks run in order and the last one to set a field wins (reference mergeResults). */
export function mergeBeforeToolCallHookResults(results: ReadonlyArray<BeforeToolCallHookResult | undefined>): BeforeToolCallHookResult {
  let merged: BeforeToolCallHookResult = {};
  for (const next of results) {
    if (!next) continue;
    merged = {
      params: next.params ?? merged.params,
      block: next.block ?? merged.block,
      blockReason: next.blockReason ?? merged.blockReason,
    };
  }
  return merged;
}

/** A hook rewrites by overlaying its fields; the original arguments are kept, not replaced. */
export function applyHookParams(original: Record<string, unknown>, hook: BeforeToolCallHookResult): Record<string, unknown> {
  return hook.params ? { ...original, ...hook.params } : original;
}
