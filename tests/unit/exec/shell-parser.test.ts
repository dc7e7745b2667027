// The exec analysis on the real tree-sitter-bash grammar. Plain word sequences joined by &&, ||, ; and | are
// split into argv; everything else needs an owner. Cases marked (OpenClaw) re-express openclaw/openclaw's
// src/infra/exec-approvals-analysis.test.ts in our terms: where OpenClaw accepts a quoted here-doc, we do not
// (any here-doc or redirection needs an owner), which is stricter on purpose.
import { spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { analyzeShellCommand, isShellParserLoaded, loadShellParser } from "@/lib/exec/shell-parser";
import { visibleText } from "@/lib/exec/visible-text";

await loadShellParser();

describe("analyzeShellCommand: plain commands", () => {
  it.each([
    ["git status", [["git", "status"]], []],
    [
      "echo ok | jq .foo",
      [
        ["echo", "ok"],
        ["jq", ".foo"],
      ],
      ["|"],
    ], // (OpenClaw) pipeline
    ["ls && rm -rf /", [["ls"], ["rm", "-rf", "/"]], ["&&"]], // (OpenClaw) chain
    ["ls || true; pwd", [["ls"], ["true"], ["pwd"]], ["||", ";"]],
    ["echo 'a b' \"c d\" e", [["echo", "a b", "c d", "e"]], []],
    ["echo 'output: $(whoami)'", [["echo", "output: $(whoami)"]], []], // (OpenClaw) inert substitution-like text in single quotes
    ["echo a'b'\"c\"", [["echo", "abc"]], []],
    ["echo \"\" ''", [["echo", "", ""]], []],
    ["wc --lines=5 a#b", [["wc", "--lines=5", "a#b"]], []],
    ["ls;", [["ls"]], []],
    ["  git   log  ", [["git", "log"]], []],
    ["échö 'ü' ü", [["échö", "ü", "ü"]], []],
  ])("%j", (command, argvs, operators) => {
    const a = analyzeShellCommand(command);
    expect(a.ok, a.reason).toBe(true);
    expect(a.segments.map((s) => s.argv)).toEqual(argvs);
    expect(a.operators).toEqual(operators);
  });
});

describe("analyzeShellCommand: constructs that need an owner", () => {
  it.each([
    ["head -c 200 ${HOME%%workspaces*}auth-secret", /parameter expansion/], // issue 18, attack 1
    ["head -3 ${HOME%%t*}etc${HOME%%t*}shadow", /parameter expansion/],
    ['echo "output: $(whoami)"', /command substitution/], // (OpenClaw)
    ['echo "output: `id`"', /command substitution|\$, ` or \\/], // (OpenClaw)
    ["echo $(whoami)", /command substitution/], // (OpenClaw)
    ["echo `id`", /command substitution/],
    ["cat < input.txt", /redirection/], // (OpenClaw)
    ["echo ok > output.txt", /redirection/], // (OpenClaw)
    ["echo ok >> o", /redirection/],
    ["ls 2>/dev/null", /redirection/],
    ["ls &> x", /redirection|background|operator|unexpected/],
    ["/usr/bin/echo first line\n/usr/bin/echo second line", /line break/], // (OpenClaw)
    ['echo "ok $\\\n(id -u)"', /line break/], // (OpenClaw) continuation inside quotes
    ['echo "ok $\\\r\n(id -u)"', /line break/], // (OpenClaw)
    ["ls \\\n -la", /line break/],
    ["cat <<EOF\n$(id)\nEOF", /line break/], // (OpenClaw) expanding here-doc
    ["cat <<'EOF'\nplain\nEOF", /line break/], // (OpenClaw accepts; we ask)
    ["cat <<< word", /here-string|redirection/],
    ["echo $HOME", /variable expansion/],
    ['echo "$HOME"', /variable expansion/],
    ["echo ${A:-x}", /parameter expansion/],
    ["echo $((1+2))", /arithmetic/],
    ["echo {a,b}", /expands/],
    ["echo {1..3}", /expands|brace/],
    ["ls *.txt", /expands/],
    ["ls file?", /expands/],
    ["ls [ab]", /expands|test/],
    ["cat ~/.ssh/id_rsa", /expands/],
    ["echo a\\ b", /expands/],
    ["FOO=1 ls", /assignment/],
    ["PATH=. ls", /assignment/],
    ["(ls)", /subshell/],
    ["{ ls; }", /command group/],
    ["ls # comment", /comment/],
    ["! ls", /negated/],
    ["ls &", /background|unexpected|operator/],
    ["ls |& cat", /stderr|operator|redirection|unexpected/],
    ["diff <(ls) <(ls)", /process substitution/],
    ["echo $'\\x41'", /ANSI-C/],
    ["f() { ls; }; f", /function/],
    ["if true; then ls; fi", /syntax|if_statement/],
    ["for i in a; do ls; done", /syntax|for_statement/],
    ["[[ -f x ]]", /test expression/],
    ["export PATH=.", /declaration|assignment/],
    ["ls ||", /not valid|parts/],
    ["&& ls", /not valid/],
    ["'unterminated", /not valid/],
    ["", /empty/],
    ["ls\0x", /NUL|line/],
  ])("%j", (command, reason) => {
    const a = analyzeShellCommand(command);
    expect(a.ok).toBe(false);
    expect(a.reason).toMatch(reason);
  });
});

// A bidi override or an invisible character inside quotes is an ordinary byte to the shell, but it changes what
// an owner reads on the approval card and in the grant's rule text (U+202E turns "cat 'x\u202Etxt.hsab'" into
// something that reads differently than it runs). Such a command is never plain, so an owner always sees it, shown
// with the characters made visible (lib/exec/visible-text.ts).
describe("analyzeShellCommand: invisible and bidi characters", () => {
  it.each([
    "cat 'notes\u202Etxt.hs'",
    'cat "a\u200Bb"',
    "cat 'a\u2066b'",
    "ls 'a\u0007'",
    "ls 'a\u00ADb'",
    "ls 'a\uFEFF'",
    "ls 'a\u001B[2Kb'",
  ])("%j needs an owner", (command) => {
    const analysis = analyzeShellCommand(command);
    expect(analysis.ok).toBe(false);
    expect(analysis.reason).toMatch(/invisible|control|U\+/);
  });
  it("ordinary non-ASCII text stays plain", () => {
    expect(analyzeShellCommand("grep 'café ünïcödé 日本'").ok).toBe(true);
  });
  it("the approval card shows such characters as code points", () => {
    expect(visibleText("cat 'notes\u202Etxt.hs'")).toBe("cat 'notes⟨U+202E⟩txt.hs'");
    expect(visibleText("a\tb\u200Bc\u001B")).toBe("a\tb⟨U+200B⟩c⟨U+001B⟩");
    expect(visibleText("line one\nline two é")).toBe("line one\nline two é");
  });
});

describe("analyzeShellCommand before the grammar is loaded", () => {
  it("is loaded here (the turn and the approval routes await loadShellParser first)", () => {
    expect(isShellParserLoaded()).toBe(true);
  });
});

// Property: whenever we call a command plain, the argv of every part equals what a real shell passes. Each
// generated command's executables are shell functions that print their name and arguments NUL-separated.
const WORD_CHARS = "abc-_./=:,@%+^#xyz01é";
const plainWord = fc.string({ unit: fc.constantFrom(...WORD_CHARS.split("")), minLength: 1, maxLength: 6 });
const anyChars = fc.string({
  unit: fc.constantFrom(..."ab $`\\\"'*?~{}[]()<>|&;#=!\t".split(""), ...WORD_CHARS.split("")),
  maxLength: 8,
});
const quoted = fc.oneof(
  anyChars.filter((s) => !s.includes("'")).map((s) => `'${s}'`),
  anyChars.map((s) => `"${s}"`),
  plainWord,
  anyChars,
);
const argWord = fc.array(quoted, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(""));
const segment = fc
  .tuple(fc.constantFrom("p", "q", "'p'", '"q"'), fc.array(argWord, { maxLength: 4 }))
  .map(([exe, args]) => [exe, ...args].join(" "));
const command = fc
  .tuple(segment, fc.array(fc.tuple(fc.constantFrom(" && ", " ; ", " | ", "; "), segment), { maxLength: 3 }))
  .map(([first, rest]) => first + rest.map(([op, s]) => op + s).join(""));

function shellArgvs(shell: string, cmd: string): string[][] | null {
  // The functions report on stderr, which every part of a pipeline shares (stdout would reach only the next part).
  // One printf per call, so parts running at once cannot interleave within a record; \x01 ends each record.
  // The record end is made once (a "$(printf …)" in each call would fork a subshell per call).
  const body = (name: string) => `${name}() { printf '%s\\0' ${name} "$@" "$__end" >&2; };`;
  const result = spawnSync(shell, ["-c", `__end=$(printf '\\001'); ${body("p")}${body("q")} { ${cmd}\n}; true`], {
    encoding: "utf8",
    timeout: 5_000,
    env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent" } as unknown as NodeJS.ProcessEnv,
  });
  if (result.status !== 0) return null;
  return result.stderr
    .split("\u0001\0")
    .filter((r) => r !== "")
    .map((r) => r.split("\0").slice(0, -1));
}

describe("property: our argv equals the shell's whenever we call a command plain", () => {
  for (const shell of ["/bin/bash", "/bin/sh"]) {
    it(`against ${shell}`, () => {
      let plain = 0;
      fc.assert(
        fc.property(command, (cmd) => {
          const a = analyzeShellCommand(cmd);
          if (!a.ok) return true;
          plain += 1;
          // Pipelines run their parts concurrently: compare the argvs in any order.
          const ours = a.segments.map((s) => s.argv);
          const theirs = shellArgvs(shell, cmd);
          expect(theirs, cmd).not.toBeNull();
          expect(theirs!.map((x) => JSON.stringify(x)).sort(), cmd).toEqual(ours.map((x) => JSON.stringify(x)).sort());
        }),
        { numRuns: 400, seed: 18 },
      );
      // The property says something only if a fair share of the generated commands was called plain.
      expect(plain).toBeGreaterThan(80);
    });
  }
});
