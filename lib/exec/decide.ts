// The exec decision for one call, shared by the execution gate and the expiry fallback: analyse the command
// with the shell grammar, check every part against the admin's rules, the requester's grants and the safe-bin
// profiles, then let the policy's exec settings decide (run, ask an owner, or refuse).
import { decideExec, type ExecSettings, type ExecVerdict, type ShellAnalysis } from "@/lib/policy";
import { evaluateCoverage, parseRule, type Coverage, type SourcedRule } from "./rules";
import { analyzeShellCommand } from "./shell-parser";

export type ExecCallDecision = { analysis: ShellAnalysis; coverage: Coverage; verdict: ExecVerdict; grantIds: string[] };

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
export function grantRules(rows: ReadonlyArray<{ id: string; pattern: string; words: unknown; prefix: boolean }>): SourcedRule[] {
  return rows.flatMap((row) => {
    const words = Array.isArray(row.words) && row.words.every((w) => typeof w === "string") ? (row.words as string[]) : null;
    return words && words.length > 0 ? [{ words, prefix: row.prefix, source: "grant" as const, id: row.id, text: row.pattern }] : [];
  });
}

export function decideExecCall(params: { command: string; settings: ExecSettings; rules: readonly SourcedRule[] }): ExecCallDecision {
  const analysis = analyzeShellCommand(params.command);
  const coverage = evaluateCoverage({ analysis, rules: params.rules, safeBins: params.settings.safeBins });
  const verdict = decideExec({ settings: params.settings, analysis, coverage });
  const grantIds = coverage.segments.flatMap((s) => (s.by && "id" in s.by && s.by.source === "grant" && s.by.id ? [s.by.id] : []));
  return { analysis, coverage, verdict, grantIds: [...new Set(grantIds)] };
}
