import { describe, expect, it } from "vitest";
import { diffVersions, withContext } from "@/lib/admin/version-diff";

describe("version diff", () => {
  it("equal documents (in any key order) have no changed lines or paths", () => {
    const diff = diffVersions({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 });
    expect(diff).toMatchObject({ paths: [], added: 0, removed: 0 });
    expect(diff.lines.every((l) => l.kind === "same")).toBe(true);
  });

  it("names the deep paths and the added and removed lines", () => {
    const diff = diffVersions(
      { tools: { deny: ["exec"] }, teams: { ops: { allow: ["read"] } } },
      { tools: { deny: ["exec", "write"] }, teams: { ops: { allow: ["read"] } } },
    );
    expect(diff.paths).toEqual(["tools.deny"]);
    expect(diff.lines.filter((l) => l.kind === "added").map((l) => l.text.trim())).toEqual(['"exec",', '"write"']);
    expect(diff.lines.filter((l) => l.kind === "removed").map((l) => l.text.trim())).toEqual(['"exec"']);
    expect(diff.added).toBe(2);
    expect(diff.removed).toBe(1);
  });

  it("collapses unchanged runs far from a change", () => {
    const before = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${String(i).padStart(2, "0")}`, i]));
    const diff = diffVersions(before, { ...before, k10: "changed" });
    const shown = withContext(diff.lines, 2);
    expect(shown.filter((l) => l.kind === "skip").length).toBe(2);
    expect(shown.filter((l) => l.kind !== "skip").length).toBe(6);
  });
});
