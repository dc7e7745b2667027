import { describe, expect, it } from "vitest";
import { reapplyDraft } from "@/lib/admin/policy-merge";

describe("reapplyDraft (reload and reapply after a conflict)", () => {
  it("keeps the other save's changes and replays the draft's own edits on top", () => {
    const base = { tools: { deny: ["exec"] }, askRules: [] as string[], teams: {} };
    const latest = { tools: { deny: ["exec"] }, askRules: ["write"], teams: {} };
    const draft = { tools: { deny: ["exec", "read"] }, askRules: [], teams: { ops: { deny: ["write"] } } };
    const result = reapplyDraft({ base, draft, latest });
    expect(result.document).toEqual({
      tools: { deny: ["exec", "read"] },
      askRules: ["write"],
      teams: { ops: { deny: ["write"] } },
    });
    expect(result.applied.sort()).toEqual(["teams.ops", "tools.deny"]);
    expect(result.conflicts).toEqual([]);
  });

  it("reports a path both sides changed differently, with both values; the draft's wins", () => {
    const base = { tools: { deny: ["exec"] } };
    const latest = { tools: { deny: ["exec", "write"] } };
    const draft = { tools: { deny: ["read"] } };
    const result = reapplyDraft({ base, draft, latest });
    expect(result.document).toEqual({ tools: { deny: ["read"] } });
    expect(result.conflicts).toEqual([{ path: "tools.deny", theirs: ["exec", "write"], yours: ["read"] }]);
  });

  it("the same change on both sides is no conflict", () => {
    const result = reapplyDraft({ base: { a: 1 }, draft: { a: 2 }, latest: { a: 2 } });
    expect(result).toEqual({ document: { a: 2 }, applied: ["a"], conflicts: [] });
  });

  it("a key the draft removed is removed; a key the other save removed but the draft edited is a conflict", () => {
    const removed = reapplyDraft({ base: { a: 1, b: 2 }, draft: { b: 2 }, latest: { a: 1, b: 3 } });
    expect(removed.document).toEqual({ b: 3 });
    expect(removed.conflicts).toEqual([]);
    const gone = reapplyDraft({ base: { a: { x: 1 } }, draft: { a: { x: 2 } }, latest: {} });
    expect(gone.document).toEqual({ a: { x: 2 } });
    expect(gone.conflicts).toEqual([{ path: "a", theirs: undefined, yours: { x: 2 } }]);
  });

  it("does not modify its inputs", () => {
    const base = { a: { b: [1] } };
    const draft = { a: { b: [1, 2] } };
    const latest = { a: { b: [1], c: 1 } };
    const copy = JSON.stringify([base, draft, latest]);
    const result = reapplyDraft({ base, draft, latest }).document as { a: { b: number[] } };
    result.a.b.push(9);
    expect(JSON.stringify([base, draft, latest])).toBe(copy);
  });
});
