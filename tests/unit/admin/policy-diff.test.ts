import { describe, expect, it } from "vitest";
import { changedSections, diffPolicyPaths, sameValue } from "@/lib/admin/policy-diff";
import { doc } from "./fixtures";

describe("policy diff", () => {
  it("lists nothing for equal documents, whatever the key order", () => {
    expect(diffPolicyPaths({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toEqual([]);
    expect(sameValue(doc(), doc())).toBe(true);
  });

  it("names the changed paths two levels deep and the sections one level deep", () => {
    const before = doc();
    const after = doc({
      tools: { deny: ["exec"] },
      teams: { ops: { deny: ["write"] } },
      system: { fs: { maxReadBytes: 1024 } },
    });
    expect(diffPolicyPaths(before, after)).toEqual(["system.fs", "teams.ops", "tools.deny"]);
    expect(changedSections(before, after)).toEqual(["system", "teams", "tools"]);
  });

  it("treats an array change as one path and a removed key as a change", () => {
    expect(diffPolicyPaths({ askRules: ["a"] }, { askRules: ["a", "b"] })).toEqual(["askRules"]);
    expect(diffPolicyPaths({ teams: { ops: {} } }, { teams: {} })).toEqual(["teams.ops"]);
  });
});
