// exec settings normalisation (the part of exec-approvals.ts outside command analysis): safeBins are case-folded
// and deduplicated when a document is parsed.
import { describe, expect, it } from "vitest";
import { DEFAULT_SAFE_BINS, ExecSettingsSchema, normalizeSafeBins, parsePolicyDocument } from "@/lib/policy";
import { isSafeBinUsage } from "@/lib/exec/safe-bins";

describe("exec settings: safeBins", () => {
  it("are case-folded, trimmed and deduplicated, first occurrence first", () => {
    expect(normalizeSafeBins(["JQ", " jq ", "Grep", "grep", "wc"])).toEqual(["jq", "grep", "wc"]);
    expect(ExecSettingsSchema.parse({ safeBins: ["Sort", "SORT", "sort"] }).safeBins).toEqual(["sort"]);
  });

  it("are normalised when a policy document is parsed, and the default list is untouched", () => {
    const parsed = parsePolicyDocument({ exec: { safeBins: ["HEAD", "Tail", "head"] } });
    expect(parsed.ok && parsed.document.exec.safeBins).toEqual(["head", "tail"]);
    const defaults = parsePolicyDocument({});
    expect(defaults.ok && defaults.document.exec.safeBins).toEqual([...DEFAULT_SAFE_BINS]);
  });

  it("still refuse empty entries", () => {
    expect(parsePolicyDocument({ exec: { safeBins: ["  "] } }).ok).toBe(false);
  });

  it("a folded entry matches the lower-case executable only: folding never widens what runs", () => {
    const safeBins = ExecSettingsSchema.parse({ safeBins: ["WC"] }).safeBins;
    const run = (argv: string[]) =>
      isSafeBinUsage({ argv, resolution: { written: argv[0]!, realPath: `/usr/bin/${argv[0]}` }, safeBins });
    expect(run(["wc", "-l"])).toBe(true);
    expect(run(["WC", "-l"])).toBe(false);
  });
});
