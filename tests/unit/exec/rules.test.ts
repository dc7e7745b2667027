// Rules, grants and command runners: what may run without an owner after an allow-always, and what never may.
// Cases marked (OpenClaw) re-express openclaw/openclaw's src/infra/exec-approvals-allow-always.test.ts and
// exec-allowlist-matching.test.ts; where OpenClaw unwraps a shell wrapper and stores the inner program, we store
// nothing for the wrapper (stricter: a carrier is never persisted).
import { describe, expect, it } from "vitest";
import { COMMAND_RUNNERS, isCommandRunner, ruleRefusal, SUBCOMMAND_TOOLS } from "@/lib/exec/runners";
import {
  evaluateCoverage,
  formatRule,
  parseRule,
  proposeGrant,
  resolveExecutable,
  type SourcedRule,
} from "@/lib/exec/rules";
import { analyzeShellCommand, loadShellParser } from "@/lib/exec/shell-parser";

await loadShellParser();

const rule = (text: string, source: SourcedRule["source"] = "grant", id = "g1"): SourcedRule => {
  const parsed = parseRule(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return { ...parsed, source, id, text };
};
const covered = (command: string, rules: SourcedRule[], safeBins: string[] = []) =>
  evaluateCoverage({ analysis: analyzeShellCommand(command), rules, safeBins });

describe("command runners are data, each refused as a rule on its own", () => {
  it.each([...COMMAND_RUNNERS].filter((r) => !Object.hasOwn(SUBCOMMAND_TOOLS, r)))("%s", (runner) => {
    expect(isCommandRunner(runner)).toBe(true);
    expect(ruleRefusal([runner])).toMatch(/approval each time/);
    expect(ruleRefusal([`/usr/bin/${runner}`, "x"])).toMatch(/approval each time/);
  });
  it.each(["python3.11", "python3.12", "/lib64/ld-linux-x86-64.so.2", "perl5.36", "node20"])(
    "versioned or loader names: %s",
    (name) => {
      expect(isCommandRunner(name)).toBe(true);
    },
  );
  it.each(Object.keys(SUBCOMMAND_TOOLS))("%s needs a subcommand, and only a listed one", (tool) => {
    expect(ruleRefusal([tool])).toMatch(/subcommand/);
    expect(ruleRefusal([tool, "-c"])).toMatch(/approval each time/);
    expect(ruleRefusal([tool, [...SUBCOMMAND_TOOLS[tool]!][0]!])).toBeNull();
  });
  it.each([
    ["git", "commit"],
    ["git", "x"],
    ["npm", "exec"],
    ["npm", "run"],
    ["npm", "install"],
    ["cargo", "run"],
    ["go", "run"],
    ["pnpm", "dlx"],
    ["yarn", "exec"],
  ])("%s %s runs the caller's programs", (tool, sub) => {
    expect(ruleRefusal([tool, sub])).toMatch(/approval each time/);
  });
  // Subcommands that look read-only but run a program the member wrote: by a flag a prefix grant lets through,
  // by the package's own scripts, or by a config file in the workspace (which is $HOME in the sandbox).
  it.each([
    ["go", "build"], // go build -toolexec ./p.sh, cgo
    ["go", "vet"], // go vet -vettool=./p.sh
    ["go", "list"], // go list -export -toolexec ./p.sh
    ["npm", "pack"], // prepack / prepare scripts from package.json
    ["yarn", "list"], // .yarnrc yarn-path / .yarnrc.yml yarnPath runs that file for every command
    ["pnpm", "list"], // .pnpmfile.cjs
    ["cargo", "tree"], // rust-toolchain.toml with a toolchain path, build.rustc-wrapper
    ["cargo", "metadata"],
    ["kubectl", "get"], // a kubeconfig user with an exec credential plugin
    ["docker", "ps"], // a docker context with an ssh:// endpoint runs ssh
    ["pip", "list"], // usercustomize.py and .pth files in the user site run on start-up
    ["pip3", "freeze"],
  ])("%s %s can be made to run the member's program: never granted", (tool, sub) => {
    expect(ruleRefusal([tool, sub])).toMatch(/approval each time/);
    expect(ruleRefusal([`/usr/bin/${tool}`, sub, "x"])).toMatch(/approval each time/);
  });
  // Programs in a stock /usr/bin that run a program or load code named by an option, so that a prefix grant an
  // owner would plausibly give ("sort *", "rg *", "cc *") lets a member run anything they wrote into the workspace.
  it.each([
    ["sort *", "sort -S 1K --compress-program=sh p.txt"],
    ["split *", "split -n 2 --filter=sh p.txt"],
    ["sdiff *", "sdiff --diff-program=./p.sh a b"],
    ["diff3 *", "diff3 --diff-program=./p.sh a b c"],
    ["rg *", "rg --pre=sh x"],
    ["cc *", "cc -wrapper sh,./p.sh -c m.c"],
    ["gcc *", "gcc -fplugin=./p.so -c m.c"],
    ["editor *", "editor -es -c !id"],
    ["prlimit *", "prlimit sh p.sh"],
    ["setarch *", "setarch x86_64 sh p.sh"],
    ["linux64 *", "linux64 sh p.sh"],
    ["run-parts *", "run-parts ."],
    ["scp *", "scp -S ./p.sh a:b c"],
    ["wget *", "wget --use-askpass=./p.sh http://x/"],
    ["tclsh8.6 *", "tclsh8.6 p.tcl"],
    ["dbus-run-session *", "dbus-run-session sh p.sh"],
    ["ssh-agent *", "ssh-agent sh p.sh"],
    ["tmux *", "tmux new-session -d sh p.sh"],
    ["socat *", "socat - EXEC:sh"],
    ["groff *", "groff -U p.ms"],
    ["openssl *", "openssl req -engine ./p.so"],
    ["fakeroot *", "fakeroot sh p.sh"],
    ["capsh *", "capsh -- p.sh"],
    ["sg *", "sg nogroup sh"],
    ["git-shell *", "git-shell -c x"],
    ["scriptlive *", "scriptlive log"],
    ["x86_64-linux-gnu-gcc-12 *", "x86_64-linux-gnu-gcc-12 -wrapper sh,./p.sh -c m.c"],
    ["x86_64-linux-gnu-ld.bfd *", "x86_64-linux-gnu-ld.bfd -plugin ./p.so"],
    ["c99 *", "c99 -wrapper sh,./p.sh -c m.c"],
    ["msgexec *", "msgexec -i p.po sh p.sh"],
    ["zless *", "zless p.gz"],
    ["pg_virtualenv *", "pg_virtualenv sh p.sh"],
  ])("a grant of %s never covers %s", (grant, command) => {
    const [name] = command.split(" ");
    expect(isCommandRunner(name!)).toBe(true);
    expect(covered(command, [rule(grant)]).satisfied).toBe(false);
  });
  it("ordinary programs are not runners", () => {
    for (const name of ["ls", "rm", "cat", "wc", "mkdir", "cp", "/usr/bin/ls"])
      expect(ruleRefusal([name]), name).toBeNull();
  });
});

describe("rule text", () => {
  it.each([
    ["git status", { words: ["git", "status"], prefix: false }],
    ["git status *", { words: ["git", "status"], prefix: true }],
    ["rg", { words: ["rg"], prefix: true }], // a single word is the old "any use of this executable" entry
    ["echo 'a b'", { words: ["echo", "a b"], prefix: false }],
    ["/usr/bin/* *", { words: ["/usr/bin/*"], prefix: true }],
  ])("%j", (text, expected) => expect(parseRule(text)).toEqual(expected));
  it.each([["ls > x"], ["a && b"], ["*"], [""], ["$(id)"]])("refuses %j", (text) =>
    expect(parseRule(text)).toHaveProperty("error"),
  );
  it("formats back what it parses", () => {
    for (const text of ["git status", "git status *", "echo 'a b' *", "ls -la"])
      expect(formatRule(parseRule(text) as never)).toBe(text);
  });
});

describe("coverage: every part must be covered", () => {
  it("an exact grant covers exactly that argv", () => {
    expect(covered("git status", [rule("git status")]).satisfied).toBe(true);
    expect(covered("git status --short", [rule("git status")]).satisfied).toBe(false);
    expect(covered("git status --short", [rule("git status *")]).satisfied).toBe(true);
  });
  it("allow always on git status does not let git -c alias run (issue 18, attack 3)", () => {
    for (const command of [
      "git -c alias.x='!id' x",
      "git -c core.pager=id status",
      "git -C / status",
      "git x",
      "git --exec-path=. status",
    ]) {
      const c = covered(command, [rule("git status *")]);
      expect(c.satisfied, command).toBe(false);
    }
  });
  it("all parts: a covered part does not carry an uncovered one", () => {
    const c = covered("git status && rm -rf x", [rule("git status")]);
    expect(c.satisfied).toBe(false);
    expect(c.segments.map((s) => s.satisfied)).toEqual([true, false]);
  });
  it("safe bins cover their parts without a rule, and only with their profile", () => {
    expect(covered("git log | wc -l", [rule("git log *")], ["wc"]).satisfied).toBe(true);
    expect(covered("git log | wc -l notes", [rule("git log *")], ["wc"]).satisfied).toBe(false);
  });
  it("a rule never covers a command runner, even a rule the admin wrote for it", () => {
    for (const [command, text] of <Array<[string, string]>>[
      ["sh -c id", "sh *"],
      ["env id", "env *"],
      ["find . -exec id ;", "find *"],
      ["xargs id", "xargs *"],
      ["sed e", "sed *"],
      ["tar -xf a --checkpoint-action=exec=id", "tar *"],
      ["make", "make *"],
      ["time id", "time *"],
      ["command id", "command *"],
      ["flock /tmp/l id", "flock *"],
      ["script -c id", "script *"],
      ["stdbuf -o0 id", "stdbuf *"],
      ["npx cowsay", "npx *"],
    ]) {
      expect(covered(command, [rule(text, "allowlist")]).satisfied, command).toBe(false);
    }
  });
  it("a path glob covers by real path, never a program in the workspace", () => {
    expect(covered("/usr/bin/ls -la", [rule("/usr/bin/* *", "allowlist")]).satisfied).toBe(true);
    expect(covered("./ls -la", [rule("/usr/bin/* *", "allowlist"), rule("./ls *", "allowlist")]).satisfied).toBe(false);
    expect(covered("ls -la", [rule("ls *")]).satisfied).toBe(true);
    expect(covered("bin/ls", [rule("bin/ls")]).satisfied).toBe(false);
  });
  it("an executable that does not resolve is never covered", () => {
    expect(covered("no-such-program-xyz", [rule("no-such-program-xyz")]).satisfied).toBe(false);
  });
  it("a not-plain command is never covered", () => {
    expect(covered("ls > x", [rule("ls *")]).satisfied).toBe(false);
  });
  it("names the grants it used", () => {
    const c = covered("ls && git status", [rule("ls", "grant", "a"), rule("git status", "grant", "b")]);
    expect(c.segments.map((s) => (s.by && "id" in s.by ? s.by.id : null))).toEqual(["a", "b"]);
  });
});

describe("what allow always would store", () => {
  it("the exact argv of each part by default", () => {
    expect(proposeGrant({ command: "git status && ls -la" })).toEqual({
      rules: [
        { words: ["git", "status"], prefix: false },
        { words: ["ls", "-la"], prefix: false },
      ],
      refused: [],
    });
  });
  it("a prefix the owner chose, never shorter than tool + subcommand", () => {
    expect(proposeGrant({ command: "git status --short", prefixWords: 2 }).rules).toEqual([
      { words: ["git", "status"], prefix: true },
    ]);
    expect(proposeGrant({ command: "git status --short", prefixWords: 1 })).toMatchObject({
      rules: [],
      refused: [expect.stringMatching(/subcommand/)],
    });
    expect(proposeGrant({ command: "ls -la /x", prefixWords: 1 }).rules).toEqual([{ words: ["ls"], prefix: true }]);
  });
  it.each([
    ["bash scripts/save.sh"], // (OpenClaw persists the script path; we store nothing: the script can change)
    ["bash -lc 'whoami'"], // (OpenClaw unwraps; we store nothing for the carrier)
    ["/bin/zsh -s"], // (OpenClaw) broad shell binary without an inner command
    ["sh -lc '$0 \"$1\"' touch marker"], // (OpenClaw) positional argv carriers
    ["/usr/bin/nice bash x.sh"], // (OpenClaw) dispatch wrappers
    ["/usr/bin/time -p id"], // (OpenClaw) time wrappers
    ["busybox sh -c id"], // (OpenClaw) busybox applets
    ["env -S 'sh -c id' tr"], // (OpenClaw) semantic env wrappers
    ["awk '{print $1}' data.csv"], // (OpenClaw) interpreter-like executables
    ["python3 -c 'print(1)'"],
    ["/lib64/ld-linux-x86-64.so.2 /bin/ls"],
    ["./wc -l"],
    ["git -c alias.x='!id' x"],
    ["npm exec cowsay"],
  ])("nothing for %j", (command) => {
    const p = proposeGrant({ command });
    expect(p.rules).toEqual([]);
    expect(p.refused.length).toBeGreaterThan(0);
  });
  it("a not-plain command offers no grant, only approval once", () => {
    expect(proposeGrant({ command: "ls > out.txt" })).toMatchObject({
      rules: [],
      refused: [expect.stringMatching(/not plain/)],
    });
  });
});

describe("resolution", () => {
  it("bare names resolve through the system PATH only, relative paths not at all", () => {
    expect(resolveExecutable("ls").realPath).toMatch(/^\/usr\/bin\/ls$|^\/bin\/ls$/);
    expect(resolveExecutable("./ls").realPath).toBeUndefined();
    expect(resolveExecutable("no-such-program-xyz").realPath).toBeUndefined();
  });
});

// Issue 28: a prefix rule (`… *`) is an allow-list, fail closed. The deny-list of runners missed these, so a grant
// `erl *` covered `erl -eval 'os:cmd("id").'`; a program nobody listed is refused the same way.
describe("prefix rules cover only programs known to run no code from their arguments", () => {
  const installed = (written: string) => ({
    written,
    realPath: written.startsWith("/") ? written : `/usr/bin/${written}`,
  });
  const coveredAs = (command: string, rules: SourcedRule[]) =>
    evaluateCoverage({ analysis: analyzeShellCommand(command), rules, safeBins: [], resolve: installed });
  const asRule = (words: string[], prefix: boolean, text: string): SourcedRule => ({
    words,
    prefix,
    source: "grant",
    id: "g",
    text,
  });
  it.each([
    ["yash", "yash -c id"],
    ["nu", "nu -c 'run-external id'"],
    ["xonsh", "xonsh -c id"],
    ["elvish", "elvish -c id"],
    ["osh", "osh -c id"],
    ["erl", `erl -noshell -eval 'os:cmd("id").'`],
    ["elixir", `elixir -e 'System.cmd("id", [])'`],
    ["iex", `iex -e 'System.cmd("id", [])'`],
    ["guile", `guile -c '(system "id")'`],
    ["ghc", `ghc -e 'System.Process.callCommand "id"'`],
    ["ghci", "ghci -e ':! id'"],
    ["raku", `raku -e 'run "id"'`],
    ["clojure", `clojure -M -e '(clojure.java.shell/sh "id")'`],
    ["scala-cli", "scala-cli run p.sc"],
    ["gosu", "gosu nobody id"],
    ["cpulimit", "cpulimit -l 50 -- sh p.sh"],
    ["nsjail", "nsjail -- /bin/sh p.sh"],
    ["frobnicate", "frobnicate --plugin ./p.so"], // listed nowhere: fails closed all the same
  ])("%s: a grant `%s *` is refused and never covers a code-running use", (name, command) => {
    expect(ruleRefusal([name], true)).toMatch(/approval each time|not known to run no code/);
    expect(proposeGrant({ command, prefixWords: 1, resolve: installed }).rules).toEqual([]);
    // Stored before this check (or written by hand): still covers nothing.
    expect(coveredAs(command, [asRule([name], true, `${name} *`)]).satisfied).toBe(false);
    // A path glob over the directory covers only the listed programs.
    expect(coveredAs(command, [asRule(["/usr/bin/*"], true, "/usr/bin/* *")]).satisfied).toBe(false);
  });
  it("the listed programs and a multi-command tool's harmless subcommand keep their prefix rules", () => {
    for (const [grant, command] of [
      ["ls *", "ls -la"],
      ["grep *", "grep -rn x ."],
      ["git status *", "git status --short"],
      ["/usr/bin/* *", "cat notes.md"],
    ] as const) {
      const parsed = parseRule(grant);
      if ("error" in parsed) throw new Error(parsed.error);
      expect(ruleRefusal(parsed.words, parsed.prefix), grant).toBeNull();
      expect(coveredAs(command, [{ ...parsed, source: "allowlist", text: grant }]).satisfied, command).toBe(true);
    }
  });
  it("an exact grant of an unlisted program still covers exactly that argv (the owner saw it)", () => {
    expect(ruleRefusal(["frobnicate", "--version"], false)).toBeNull();
    expect(
      coveredAs("frobnicate --version", [asRule(["frobnicate", "--version"], false, "frobnicate --version")]).satisfied,
    ).toBe(true);
    expect(
      coveredAs("frobnicate --plugin ./p.so", [asRule(["frobnicate", "--version"], false, "frobnicate --version")])
        .satisfied,
    ).toBe(false);
  });
});
