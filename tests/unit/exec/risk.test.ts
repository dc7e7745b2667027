// Issue 15: risk cues on approval requests, computed from the real tree-sitter-bash analysis (no text matching).
import { describe, expect, it } from "vitest";
import { assessRisk, effectiveArgv, executablesOf, outsidePath, type RiskKind } from "@/lib/exec/risk";
import { analyzeShellCommand, loadShellParser } from "@/lib/exec/shell-parser";

await loadShellParser();

const kinds = (command: string, known: string[] | null = null): RiskKind[] =>
  assessRisk({
    toolName: "exec",
    args: { command },
    analysis: analyzeShellCommand(command),
    knownExecutables: known ? new Set(known) : null,
  })
    .map((c) => c.kind)
    .sort();

describe("assessRisk on exec commands", () => {
  it("rm -rf and echo do not look the same", () => {
    expect(kinds("rm -rf build")).toEqual(["destructive"]);
    expect(kinds("echo hi")).toEqual([]);
    const [cue] = assessRisk({
      toolName: "exec",
      args: {},
      analysis: analyzeShellCommand("rm -rf build"),
      knownExecutables: null,
    });
    expect(cue).toMatchObject({ kind: "destructive", label: "Destructive" });
    expect(cue!.detail).toMatch(/rm -r/);
  });

  it.each([
    ["ls && rm -rf /", ["destructive", "outside-workspace"]],
    ["sudo rm notes.md", ["destructive"]],
    ["env X=1 timeout 5 curl https://example.com", ["network"]],
    ["git push --force origin main", ["destructive", "network"]],
    ["git status", []],
    ["cat ../../etc/passwd", ["outside-workspace"]],
    ["cat src/../README.md", []],
    ["cp a.txt b.txt", ["destructive"]],
    ["cp -n a.txt b.txt", []],
    ["npm install left-pad", ["network"]],
    ["wc -l /etc/hosts", ["outside-workspace"]],
    ["echo hi > out.txt", ["destructive"]], // not plain: the redirection is named by the analysis
    ["find . -name '*.tmp' -delete", ["destructive"]],
    ["ls /dev/null", []],
  ])("%s → %j", (command, expected) => {
    expect(kinds(command)).toEqual([...expected].sort());
  });

  it("first use: an executable this user never ran before gets a cue, a known one does not", () => {
    expect(kinds("jq .a data.json", ["ls"])).toEqual(["first-use"]);
    expect(kinds("jq .a data.json", ["jq"])).toEqual([]);
    // Without the history, no cue rather than a wrong one.
    expect(kinds("jq .a data.json", null)).toEqual([]);
    const cues = assessRisk({
      toolName: "exec",
      args: {},
      analysis: analyzeShellCommand("sudo shred key.pem"),
      knownExecutables: new Set(["sudo"]),
    });
    expect(cues.find((c) => c.kind === "first-use")?.detail).toMatch(/shred/);
  });
});

describe("file tools and helpers", () => {
  it("write replaces a file; a path outside the workspace is marked", () => {
    expect(
      assessRisk({
        toolName: "write",
        args: { path: "notes.md", content: "x" },
        analysis: null,
        knownExecutables: null,
      }).map((c) => c.kind),
    ).toEqual(["destructive"]);
    expect(
      assessRisk({ toolName: "read", args: { path: "/etc/shadow" }, analysis: null, knownExecutables: null }).map(
        (c) => c.kind,
      ),
    ).toEqual(["outside-workspace"]);
    expect(
      assessRisk({ toolName: "read", args: { path: "docs/a.md" }, analysis: null, knownExecutables: null }),
    ).toEqual([]);
  });

  it("outsidePath, effectiveArgv and executablesOf", () => {
    expect(outsidePath("--file=/etc/passwd")).toBe(true);
    expect(outsidePath("a/b/../c")).toBe(false);
    expect(outsidePath("a/../../c")).toBe(true);
    expect(outsidePath("https://example.com/x")).toBe(false);
    expect(effectiveArgv(["sudo", "-u", "root", "rm", "x"])).toEqual(["rm", "x"]);
    expect(effectiveArgv(["nice", "-n", "5", "xargs", "-I", "{}", "rm", "{}"])).toEqual(["rm", "{}"]);
    expect(effectiveArgv(["timeout", "-s", "KILL", "5", "curl", "x"])).toEqual(["curl", "x"]);
    expect(executablesOf(analyzeShellCommand("/usr/bin/env rm x | wc -l"))).toEqual(["env", "rm", "wc"]);
  });
});
