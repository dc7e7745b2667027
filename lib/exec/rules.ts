// Exec rules: what lets a plain command run without an owner. A rule is the words a command must start with,
// optionally followed by `*` ("and any further arguments"): `git status` allows exactly that argv, `git status *`
// any `git status ...`. The same rules come from two places: the admin's exec allowlist in the policy document,
// and owners' allow-always grants (stored, scoped, expiring: lib/db/grants.ts). Every part of a command must be
// covered by a rule or be a safe-bin use; a part that runs a command runner, or an executable outside the system
// directories (a copy in the workspace), is never covered by anything.
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import path from "node:path";
import type { ShellAnalysis, ShellSegment } from "@/lib/policy";
import { isCommandRunner, prefixRefusal, ruleRefusal, SUBCOMMAND_TOOLS } from "./runners";
import { isSafeBinUsage, type ExecutableResolution } from "./safe-bins";
import { analyzeShellCommand } from "./shell-parser";

/** The PATH every command gets, in the sandbox and on the host: system directories only, never the workspace. */
export const EXEC_PATH = "/usr/local/bin:/usr/bin:/bin";
/** Executables covered by rules must really live here (read-only inside the sandbox). */
const SYSTEM_PREFIXES = ["/usr/", "/bin/", "/sbin/"];

export type ExecRule = { words: string[]; prefix: boolean };
export type SourcedRule = ExecRule & { source: "allowlist" | "grant"; id?: string; text: string };

/** Quotes a word the way the analysis reads it back (single quotes when it holds anything but plain characters). */
export function quoteWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'"'"'`)}'`;
}

export function formatRule(rule: ExecRule): string {
  return [...rule.words.map(quoteWord), ...(rule.prefix ? ["*"] : [])].join(" ");
}

/**
 * Reads rule text ("git status *", "ls", "/usr/bin/ls -la"). A single word without `*` means "<word> *" (the
 * allowlist's old executable entries). Returns a reason instead when the text is not one plain word sequence.
 */
export function parseRule(text: string): ExecRule | { error: string } {
  const trimmed = text.trim();
  const prefix = trimmed === "*" || trimmed.endsWith(" *");
  const body = prefix ? trimmed.slice(0, -1).trim() : trimmed;
  if (body === "") return { error: "a rule needs at least an executable" };
  // A path glob in the first word ("/usr/bin/*") is matched by hand below, so the parser sees it quoted.
  const [first, ...rest] = body.split(/[ \t]+/);
  const forParser = first && /[*?]/.test(first) && first.includes("/") ? [quoteWord(first), ...rest].join(" ") : body;
  const analysis = analyzeShellCommand(forParser);
  if (!analysis.ok) return { error: `not a plain word sequence: ${analysis.reason}` };
  if (analysis.segments.length !== 1) return { error: "a rule covers one command, without &&, ||, ; or |" };
  const words = analysis.segments[0]!.argv;
  return { words, prefix: prefix || words.length === 1 };
}

function globMatches(glob: string, value: string): boolean {
  const source = glob
    .split("**")
    .map((part) =>
      part
        .split("*")
        .map((p) => p.replace(/[.+^${}()|[\]\\?]/g, "\\$&"))
        .join("[^/]*"),
    )
    .join(".*");
  return new RegExp(`^${source}$`).test(value);
}

function firstWordMatches(ruleWord: string, resolution: ExecutableResolution): boolean {
  // A path rule matches where the program really is, never the words as written.
  if (ruleWord.includes("/")) return resolution.realPath !== undefined && globMatches(ruleWord, resolution.realPath);
  return !resolution.written.includes("/") && ruleWord === resolution.written;
}

export function ruleMatches(rule: ExecRule, argv: readonly string[], resolution: ExecutableResolution): boolean {
  const [first, ...rest] = rule.words;
  if (first === undefined || !firstWordMatches(first, resolution)) return false;
  if (rule.prefix ? argv.length < rule.words.length : argv.length !== rule.words.length) return false;
  return rest.every((word, i) => argv[i + 1] === word);
}

function isExecutableFile(file: string): boolean {
  try {
    accessSync(/*turbopackIgnore: true*/ file, constants.X_OK);
    return statSync(/*turbopackIgnore: true*/ file).isFile();
  } catch {
    return false;
  }
}

/**
 * How the shell will find argv[0]: PATH lookup for a bare name (EXEC_PATH), the path itself when absolute. A
 * relative path names something in the workspace and is not resolved: no rule may cover it.
 */
export function resolveExecutable(written: string): ExecutableResolution {
  if (written.includes("/") && !written.startsWith("/")) return { written };
  const candidates = written.startsWith("/") ? [written] : EXEC_PATH.split(":").map((dir) => path.join(dir, written));
  for (const candidate of candidates) {
    if (!isExecutableFile(candidate)) continue;
    try {
      return { written, realPath: realpathSync(/*turbopackIgnore: true*/ candidate) };
    } catch {
      return { written };
    }
  }
  return { written };
}

/** Why no rule or safe bin may cover this part, or null when one may. */
export function segmentRefusal(segment: ShellSegment, resolution: ExecutableResolution): string | null {
  if (segment.executable.includes("/") && !segment.executable.startsWith("/"))
    return `${segment.executable} is a program in the workspace; it needs an approval each time`;
  if (!resolution.realPath) return `${segment.executable} does not resolve to an executable in ${EXEC_PATH}`;
  if (!SYSTEM_PREFIXES.some((p) => resolution.realPath!.startsWith(p)))
    return `${segment.executable} is not a system program (${path.basename(resolution.realPath)} lives outside /usr)`;
  for (const name of [segment.executable, resolution.realPath]) {
    const base = path.basename(name);
    if (Object.hasOwn(SUBCOMMAND_TOOLS, base)) {
      const refusal = ruleRefusal([base, ...segment.argv.slice(1, 2)]);
      if (refusal) return refusal;
    } else if (isCommandRunner(name)) {
      return `${base} runs other programs or code given in its arguments; it needs an approval each time`;
    }
  }
  return null;
}

export type SegmentCoverage = {
  argv: string[];
  satisfied: boolean;
  by?: SourcedRule | { source: "safeBin"; text: string };
  refusal?: string;
};
export type Coverage = { satisfied: boolean; segments: SegmentCoverage[]; reason?: string };

/** Every part must be covered: by a rule (allowlist or grant) or as a safe-bin use. Grants used are reported. */
export function evaluateCoverage(params: {
  analysis: ShellAnalysis;
  rules: readonly SourcedRule[];
  safeBins: readonly string[];
  resolve?: (written: string) => ExecutableResolution;
}): Coverage {
  const resolve = params.resolve ?? resolveExecutable;
  if (!params.analysis.ok)
    return { satisfied: false, segments: [], reason: `the command is not plain: ${params.analysis.reason}` };
  const segments = params.analysis.segments.map((segment): SegmentCoverage => {
    const argv = segment.argv;
    const resolution = resolve(segment.executable);
    const refusal = segmentRefusal(segment, resolution);
    if (refusal) return { argv, satisfied: false, refusal };
    // A prefix rule covers only programs known to run no code from their arguments, checked where it really is too.
    const prefixOk =
      prefixRefusal(segment.executable) === null &&
      (!resolution.realPath || prefixRefusal(resolution.realPath) === null);
    const rule = params.rules.find(
      (r) => ruleRefusal(r.words, r.prefix) === null && (!r.prefix || prefixOk) && ruleMatches(r, argv, resolution),
    );
    if (rule) return { argv, satisfied: true, by: rule };
    if (isSafeBinUsage({ argv, resolution, safeBins: params.safeBins }))
      return { argv, satisfied: true, by: { source: "safeBin", text: `safe bin ${segment.executable}` } };
    return {
      argv,
      satisfied: false,
      refusal: `no rule, grant or safe-bin profile covers "${formatRule({ words: argv, prefix: false })}"`,
    };
  });
  const firstMiss = segments.find((s) => !s.satisfied);
  return { satisfied: segments.length > 0 && !firstMiss, segments, reason: firstMiss?.refusal };
}

export type GrantProposal = { rules: ExecRule[]; refused: string[] };

/**
 * What "allow always" on this command would store: per part, the exact argv (or its first `prefixWords` words
 * followed by `*`, when the owner chose a prefix). Parts that no rule may cover are refused, with the reason.
 */
export function proposeGrant(params: {
  command: string;
  prefixWords?: number;
  resolve?: (written: string) => ExecutableResolution;
}): GrantProposal {
  const analysis = analyzeShellCommand(params.command);
  if (!analysis.ok)
    return { rules: [], refused: [`the command is not plain (${analysis.reason}); approve it once instead`] };
  const resolve = params.resolve ?? resolveExecutable;
  const rules: ExecRule[] = [];
  const refused: string[] = [];
  for (const segment of analysis.segments) {
    const refusal = segmentRefusal(segment, resolve(segment.executable));
    if (refusal) {
      refused.push(refusal);
      continue;
    }
    const cut =
      params.prefixWords !== undefined && params.prefixWords < segment.argv.length
        ? Math.max(1, params.prefixWords)
        : undefined;
    const rule: ExecRule =
      cut === undefined ? { words: segment.argv, prefix: false } : { words: segment.argv.slice(0, cut), prefix: true };
    const tooShort = ruleRefusal(rule.words, rule.prefix);
    if (tooShort) refused.push(tooShort);
    else if (!rules.some((r) => formatRule(r) === formatRule(rule))) rules.push(rule);
  }
  return { rules, refused };
}
