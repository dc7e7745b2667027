// Safe-bin profiles. Cases marked (OpenClaw) re-express openclaw/openclaw's src/infra/exec-approvals-safe-bins.test.ts.
import { describe, expect, it } from "vitest";
import { DEFAULT_SAFE_BINS } from "@/lib/policy";
import { isSafeBinUsage, SAFE_BIN_PROFILES } from "@/lib/exec/safe-bins";

const at = (name: string, realPath = `/usr/bin/${name}`) => ({ written: name, realPath });
const allBins = ["cut", "uniq", "head", "tail", "tr", "wc", "sort", "grep", "jq", "awk", "sed", "python3", "echo"];
const safe = (argv: string[], opts: { realPath?: string; safeBins?: string[] } = {}) =>
  isSafeBinUsage({ argv, resolution: at(argv[0]!, opts.realPath), safeBins: opts.safeBins ?? allBins });

describe("defaults", () => {
  it("are the stdin-only filters; sort, grep and jq are not among them (OpenClaw: does not include sort/grep in default safeBins)", () => {
    expect([...DEFAULT_SAFE_BINS].sort()).toEqual(["cut", "head", "tail", "tr", "uniq", "wc"]);
  });
  it("every default has a profile", () => {
    for (const bin of DEFAULT_SAFE_BINS) expect(SAFE_BIN_PROFILES[bin], bin).toBeDefined();
  });
});

describe("allowed uses", () => {
  it.each([
    [["cut", "-s", "-f", "1"]], // (OpenClaw) only-delimited mode with a field selector
    [["cut", "-d:", "-f1,3-5"]],
    [["head", "-q"]], // (OpenClaw)
    [["head", "-n", "5"]],
    [["head", "-n5"]],
    [["head", "--lines=5"]],
    [["tail", "-q"]], // (OpenClaw)
    [["tail", "-n", "+2"]],
    [["wc", "-l"]], // (OpenClaw)
    [["wc", "--words"]], // (OpenClaw)
    [["wc", "-lw"]],
    [["uniq", "-c"]], // (OpenClaw)
    [["tr", "-d", "abc"]], // (OpenClaw)
    [["tr", "a-z", "A-Z"]],
    [["tr", "--", "-a", "b"]],
  ])("%j", (argv) => expect(safe(argv)).toBe(true));
});

describe("refused uses", () => {
  it.each([
    ["a file operand", ["head", "secret.txt"]],
    ["a file operand after -n", ["head", "-n", "3", "/etc/shadow"]],
    ["stdin named as a file operand", ["wc", "-l", "-"]],
    ["uniq writing its second operand", ["uniq", "in", "out"]], // issue 18, attack 2
    ["a value-taking flag without its value", ["head", "-n"]],
    ["a malformed count", ["head", "-n", "5;id"]],
    ["a parameter-expansion-looking value", ["head", "-c${IFS}16${IFS}${X}"]], // (OpenClaw) blocks POSIX parameter expansion in value tokens
    ["an expansion in a long option value", ["head", "--bytes=${IFS}16"]], // (OpenClaw)
    ["tr with one extra operand", ["tr", "a", "b", "c"]],
    ["tail follow mode", ["tail", "-fn", "1"]], // (OpenClaw) keeps tail -fn 1 approval-gated
    ["tail --follow", ["tail", "--follow"]],
    ["tail --pid", ["tail", "--pid=1"]],
    ["wc --files0-from", ["wc", "--files0-from", "list"]], // (OpenClaw) blocks wc file-list flag
    ["wc --files0-from=", ["wc", "--files0-from=list"]],
    ["wc abbreviated denied flag", ["wc", "--files0-fro", "x"]], // (OpenClaw) denied flag abbreviations
    ["an abbreviated allowed flag (getopt would expand it)", ["wc", "--line"]],
    ["an unknown short flag", ["tr", "-S", "a", "b"]], // (OpenClaw) rejects unknown short options
    ["an unknown long option", ["sort", "--totally-unknown=1"]], // (OpenClaw)
    ["a bool long flag given a value", ["wc", "--lines=3"]],
  ])("%s: %j", (_why, argv) => expect(safe(argv)).toBe(false));

  it.each([
    ["sort -o (output file)", ["sort", "-o", "x"]], // (OpenClaw) blocks sort output flag
    ["sort --output=", ["sort", "--output=x"]],
    ["sort --compress-program (runs a program)", ["sort", "-S", "1K", "--compress-program=sh", "p.txt"]], // issue 18, attack 2
    ["sort --files0-from", ["sort", "--files0-fro=x"]],
    ["sort -T", ["sort", "-T", "/tmp"]],
    ["sort with only harmless flags", ["sort", "-r"]],
    ["grep -R", ["grep", "-R", "x"]], // (OpenClaw) blocks grep recursive flag
    ["grep --file", ["grep", "--file=x"]],
    ["grep with a file positional", ["grep", "-e", "needle", ".env"]], // (OpenClaw)
    ["jq filter", ["jq", ".foo"]], // (OpenClaw) blocks jq safe bins even with non-path args
    ["jq env", ["jq", "env"]], // (OpenClaw)
    ["jq $ENV", ["jq", "$ENV"]], // (OpenClaw)
    ["jq include", ["jq", 'include "envdump"; envdump']], // (OpenClaw)
    ["awk script", ["awk", 'BEGIN { system("id") }']], // (OpenClaw) blocks awk scripts even when listed
    ["sed e command", ["sed", "e"]], // (OpenClaw) blocks sed scripts even when listed
    ["python3 -c", ["python3", "-c", "print(1)"]], // (OpenClaw) does not auto-allow unprofiled entries
    ["echo (no profile)", ["echo", "hello"]], // a listed name without a profile allows nothing
  ])("no profile, never safe: %s", (_why, argv) => expect(safe(argv)).toBe(false));
});

describe("where the binary really is", () => {
  it("a copy in the workspace (./wc) is never the safe bin wc (issue 18, attack 2)", () => {
    expect(
      isSafeBinUsage({
        argv: ["./wc", "-l"],
        resolution: { written: "./wc", realPath: "/srv/ws/u1/wc" },
        safeBins: ["wc"],
      }),
    ).toBe(false);
  });
  it("a same-named binary outside the trusted directories is refused (OpenClaw: resolved from untrusted directories)", () => {
    expect(safe(["head", "-n", "1"], { realPath: "/tmp/evil-bin/head" })).toBe(false);
    expect(safe(["head", "-n", "1"], { realPath: "/usr/local/bin/head" })).toBe(false);
  });
  it("a trusted path whose real file has another name (a symlink to busybox) is refused", () => {
    expect(safe(["head", "-n", "1"], { realPath: "/usr/bin/busybox" })).toBe(false);
  });
  it("an executable that does not resolve is refused", () => {
    expect(isSafeBinUsage({ argv: ["head"], resolution: { written: "head" }, safeBins: ["head"] })).toBe(false);
  });
  it("a name not listed in safeBins is refused even with a profile; listed names are case-folded", () => {
    expect(safe(["head", "-n", "1"], { safeBins: ["wc"] })).toBe(false);
    expect(safe(["head", "-n", "1"], { safeBins: [" HEAD "] })).toBe(true);
  });
});
