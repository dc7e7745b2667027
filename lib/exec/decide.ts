// The exec decision for one call, shared by the execution gate and the expiry fallback: analyse the command
// with the shell grammar, check every part against the admin's rules, the requester's grants and the safe-bin
// profiles, then let the policy's exec settings decide (run, ask an owner, or refuse).
import { decideExec, type ExecSettings, type ExecVerdict, type ShellAnalysis } from "@/lib/policy";
import {
  evaluateCoverage,
  formatRule,
  parseRule,
  resolveExecutable,
  ruleMatches,
  type Coverage,
  type SourcedRule,
} from "./rules";
import { analyzeShellCommand } from "./shell-parser";

export type ExecCallDecision = {
  analysis: ShellAnalysis;
  coverage: Coverage;
  verdict: ExecVerdict;
  grantIds: string[];
};

/** The admin allowlist as rules; entries that do not parse are skipped (the editor reports them). */
export function compileAllowlist(entries: readonly string[]): SourcedRule[] {
  const rules: SourcedRule[] = [];
  for (const text of entries) {
    const rule = parseRule(text);
    if (!("error" in rule)) rules.push({ ...rule, source: "allowlist", text });
  }
  return rules;
}

/** Stored grants as rules (rows of lib/db/allowlist with kind "exec"). */
export function grantRules(
  rows: ReadonlyArray<{ id: string; pattern: string; words: unknown; prefix: boolean }>,
): SourcedRule[] {
  return rows.flatMap((row) => {
    const words =
      Array.isArray(row.words) && row.words.every((w) => typeof w === "string") ? (row.words as string[]) : null;
    return words && words.length > 0
      ? [{ words, prefix: row.prefix, source: "grant" as const, id: row.id, text: row.pattern }]
      : [];
  });
}

/**
 * Sandbox mode's ask rules against a command: the first rule a part matches, or, while any ask rule exists, the
 * reason a command the analysis cannot split waits anyway (it might hide a match). Null when none applies.
 */
export function askRuleHit(analysis: ShellAnalysis, askRules: readonly string[]): string | null {
  const rules = compileAllowlist(askRules);
  if (rules.length === 0) return null;
  if (!analysis.ok) return `the command could not be split (${analysis.reason}), and ask rules apply (exec.askRules)`;
  for (const segment of analysis.segments) {
    // An ask rule only adds a question, so it matches widely: `rm` also catches /bin/rm and ./rm by base name.
    const resolution = resolveExecutable(segment.executable);
    const bases = [segment.executable, resolution.realPath ?? ""].map((p) => p.slice(p.lastIndexOf("/") + 1));
    const rule = rules.find((r) => {
      const [first, ...rest] = r.words;
      if (first === undefined) return false;
      if (first.includes("/")) return ruleMatches(r, segment.argv, resolution);
      const args = segment.argv.slice(1);
      const lengthFits = r.prefix ? args.length >= rest.length : args.length === rest.length;
      return bases.includes(first) && lengthFits && rest.every((word, i) => args[i] === word);
    });
    if (rule) return `an ask rule matches (exec.askRules: ${formatRule(rule)})`;
  }
  return null;
}

export function decideExecCall(params: {
  command: string;
  settings: ExecSettings;
  rules: readonly SourcedRule[];
  /** Why this call would run on the host (an admin's exec.host setting), or null: in sandbox mode an escalation. */
  host?: string | null;
}): ExecCallDecision {
  const analysis = analyzeShellCommand(params.command);
  const coverage = evaluateCoverage({ analysis, rules: params.rules, safeBins: params.settings.safeBins });
  const askRule = params.settings.security === "sandbox" ? askRuleHit(analysis, params.settings.askRules) : null;
  const verdict = decideExec({
    settings: params.settings,
    analysis,
    coverage,
    escalations: { host: params.host ?? null, askRule },
  });
  const grantIds = coverage.segments.flatMap((s) =>
    s.by && "id" in s.by && s.by.source === "grant" && s.by.id ? [s.by.id] : [],
  );
  return { analysis, coverage, verdict, grantIds: [...new Set(grantIds)] };
}
