import { describe, expect, it } from "vitest";
import {
  analyzeShellCommand,
  applyHookParams,
  decideExec,
  DEFAULT_EXEC_SETTINGS,
  evaluateExecAllowlist,
  isApprovalDecision,
  matchesPathGlob,
  mergeBeforeToolCallHookResults,
  requiresExecApproval,
  resolveAskFallback,
  type ExecAsk,
  type ExecSecurity,
} from "@/lib/policy";

describe("requiresExecApproval (reference rule)", () => {
  const asks: ExecAsk[] = ["off", "on-miss", "always"];
  const securities: ExecSecurity[] = ["deny", "allowlist", "full"];
  const rows: Array<[ExecAsk, ExecSecurity, boolean, boolean, boolean]> = [];
  for (const ask of asks)
    for (const security of securities)
      for (const analysisOk of [true, false])
        for (const allowlistSatisfied of [true, false]) {
          const expected = ask === "always" || (ask === "on-miss" && security === "allowlist" && (!analysisOk || !allowlistSatisfied));
          rows.push([ask, security, analysisOk, allowlistSatisfied, expected]);
        }
  it("covers all 36 combinations", () => expect(rows).toHaveLength(36));
  it.each(rows)("ask=%s security=%s analysisOk=%s allowlistSatisfied=%s → %s", (ask, security, analysisOk, allowlistSatisfied, expected) => {
    expect(requiresExecApproval({ ask, security, analysisOk, allowlistSatisfied })).toBe(expected);
  });

  it.each([
    ["on-miss", "allowlist", false, false],
    ["off", "allowlist", false, false],
    ["always", "allowlist", true, true],
    ["always", "full", true, true],
  ] as Array<[ExecAsk, ExecSecurity, boolean, boolean]>)("durable approval: ask=%s security=%s → %s", (ask, security, _a, expected) => {
    expect(requiresExecApproval({ ask, security, analysisOk: true, allowlistSatisfied: false, durableApproval: true })).toBe(expected);
  });
});

describe("path globs", () => {
  it.each([
    ["/usr/bin/git", "/usr/bin/*", true],
    ["/usr/bin/sub/git", "/usr/bin/*", false],
    ["/usr/bin/sub/git", "/usr/**", true],
    ["/opt/tools/bin/x", "/opt/**/bin/*", true],
    ["/opt/bin/x", "/opt/**/bin/*", true],
    ["/usr/bin/gi", "/usr/bin/g?t", false],
    ["/usr/bin/git", "/usr/bin/g?t", true],
    ["/usr/bin/g/t", "/usr/bin/g?t", false],
    ["/usr/bin/git", "/usr/bin/git", true],
    ["/usr/bin/gitx", "/usr/bin/git", false],
    ["/usr/bin/GIT", "/usr/bin/git", false],
    ["/usr/bin.x/git", "/usr/bin/git", false],
    ["/home/ann/bin/tool", "~/bin/*", true],
  ])("%s vs %s → %s", (path, glob, expected) => {
    expect(matchesPathGlob(path, glob, "/home/ann")).toBe(expected);
  });
});

describe("evaluateExecAllowlist", () => {
  const resolveExecutable = (name: string) => ({ git: "/usr/bin/git", ls: "/bin/ls", rm: "/bin/rm", jq: "/usr/bin/jq" })[name];
  const run = (command: string, allowlist: string[], safeBins?: string[]) =>
    evaluateExecAllowlist({ analysis: analyzeShellCommand(command), allowlist, safeBins, resolveExecutable, homeDir: "/home/ann" });

  it("every segment must be covered", () => {
    expect(run("git status && ls", ["/usr/bin/*", "/bin/ls"]).satisfied).toBe(true);
    const partial = run("git status && rm -rf x", ["/usr/bin/*", "/bin/ls"]);
    expect(partial.satisfied).toBe(false);
    expect(partial.segments.map((s) => [s.executable, s.satisfied, s.match])).toEqual([
      ["git", true, "/usr/bin/*"],
      ["rm", false, undefined],
    ]);
  });

  it("matches explicit paths and bare-name entries, never a bare name against a path glob without resolution", () => {
    expect(run("/usr/local/bin/node x", ["/usr/local/**"]).satisfied).toBe(true);
    expect(run("unknowncmd", ["/usr/**"]).satisfied).toBe(false);
    expect(run("unknowncmd", ["unknown*"]).satisfied).toBe(true);
    expect(run("./unknowncmd", ["unknown*"]).satisfied).toBe(false);
  });

  it("safe bins pass without an allowlist entry unless given path-like arguments", () => {
    expect(run("git log | grep fix | wc -l", ["/usr/bin/git"]).satisfied).toBe(true);
    expect(run("grep secret /etc/passwd", []).satisfied).toBe(false);
    expect(run("jq --from-file=./f.jq", []).satisfied).toBe(false);
    expect(run("head -n 5", []).segments[0]?.match).toBe("safeBin:head");
    expect(run("grep x", [], []).satisfied).toBe(false);
  });

  it("a failed analysis is never satisfied", () => {
    expect(run("ls > x", ["**"]).satisfied).toBe(false);
  });
});

describe("decideExec", () => {
  const decide = (command: string, security: ExecSecurity, ask: ExecAsk, allowlist: string[] = [], durableApproval?: boolean) => {
    const analysis = analyzeShellCommand(command);
    return decideExec({ settings: { security, ask }, analysis, allowlist: evaluateExecAllowlist({ analysis, allowlist }), durableApproval }).action;
  };
  it.each([
    ["ls", "deny", "always", [], undefined, "deny"],
    ["ls", "allowlist", "on-miss", ["ls"], undefined, "allow"],
    ["ls", "allowlist", "on-miss", [], undefined, "ask"],
    ["ls", "allowlist", "off", [], undefined, "deny"],
    ["ls > x", "allowlist", "on-miss", ["ls"], undefined, "ask"],
    ["ls > x", "allowlist", "off", ["ls"], undefined, "deny"],
    ["ls", "allowlist", "always", ["ls"], undefined, "ask"],
    ["rm -rf /", "full", "off", [], undefined, "allow"],
    ["rm -rf /", "full", "always", [], undefined, "ask"],
    ["rm x", "allowlist", "on-miss", [], true, "allow"],
  ] as Array<[string, ExecSecurity, ExecAsk, string[], boolean | undefined, string]>)("%j security=%s ask=%s → …", (command, security, ask, allowlist, durable, expected) => {
    expect(decide(command, security, ask, allowlist, durable)).toBe(expected);
  });

  it("askFallback decides when no approval can be obtained", () => {
    expect(resolveAskFallback("deny", { analysisOk: true, allowlistSatisfied: true })).toBe("deny");
    expect(resolveAskFallback("allowlist", { analysisOk: true, allowlistSatisfied: true })).toBe("allow");
    expect(resolveAskFallback("allowlist", { analysisOk: true, allowlistSatisfied: false })).toBe("deny");
    expect(resolveAskFallback("allowlist", { analysisOk: false, allowlistSatisfied: true })).toBe("deny");
    expect(resolveAskFallback("full", { analysisOk: false, allowlistSatisfied: false })).toBe("allow");
  });

  it("defaults are allowlist + on-miss + deny fallback", () => {
    expect(DEFAULT_EXEC_SETTINGS).toMatchObject({ security: "allowlist", ask: "on-miss", askFallback: "deny" });
  });
});

describe("hooks and decisions", () => {
  it("merges before-tool-call results last-write-wins per field", () => {
    expect(
      mergeBeforeToolCallHookResults([
        { params: { a: 1 }, block: false },
        undefined,
        { blockReason: "r1" },
        { params: { b: 2 }, block: true },
      ]),
    ).toEqual({ params: { b: 2 }, block: true, blockReason: "r1" });
    expect(mergeBeforeToolCallHookResults([])).toEqual({});
  });

  it("hook params overlay the original arguments", () => {
    expect(applyHookParams({ a: 1, b: 1 }, { params: { b: 2 } })).toEqual({ a: 1, b: 2 });
    const original = { a: 1 };
    expect(applyHookParams(original, {})).toBe(original);
  });

  it("only the three decisions are valid", () => {
    expect(["allow-once", "allow-always", "deny"].every(isApprovalDecision)).toBe(true);
    expect(isApprovalDecision("approve")).toBe(false);
    expect(isApprovalDecision(null)).toBe(false);
  });
});
