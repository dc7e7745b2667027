import { describe, expect, it } from "vitest";
import {
  applyHookParams,
  isApprovalDecision,
  mergeBeforeToolCallHookResults,
  requiresExecApproval,
  type ExecAsk,
  type ExecSecurity,
} from "@/lib/policy";

describe("P16 requiresExecApproval (reference rule)", () => {
  const asks: ExecAsk[] = ["off", "on-miss", "always"];
  const securities: ExecSecurity[] = ["deny", "allowlist", "full"];
  const rows: Array<[ExecAsk, ExecSecurity, boolean, boolean, boolean]> = [];
  for (const ask of asks)
    for (const security of securities)
      for (const analysisOk of [true, false])
        for (const allowlistSatisfied of [true, false]) {
          const expected =
            ask === "always" || (ask === "on-miss" && security === "allowlist" && (!analysisOk || !allowlistSatisfied));
          rows.push([ask, security, analysisOk, allowlistSatisfied, expected]);
        }
  it("covers all 36 combinations", () => expect(rows).toHaveLength(36));
  it.each(rows)(
    "ask=%s security=%s analysisOk=%s allowlistSatisfied=%s → %s",
    (ask, security, analysisOk, allowlistSatisfied, expected) => {
      expect(requiresExecApproval({ ask, security, analysisOk, allowlistSatisfied })).toBe(expected);
    },
  );
});

describe("hooks and decisions", () => {
  it("P10 merges before-tool-call results: last params win until a block, which is final with its own reason", () => {
    expect(
      mergeBeforeToolCallHookResults([
        { params: { a: 1 }, block: false },
        undefined,
        { blockReason: "r1" },
        { params: { b: 2 }, block: true },
      ]),
    ).toEqual({ block: true });
    expect(mergeBeforeToolCallHookResults([{ params: { a: 1 } }, { params: { b: 2 }, block: false }])).toEqual({
      params: { b: 2 },
    });
    expect(mergeBeforeToolCallHookResults([])).toEqual({});
  });

  it("P11 hook params overlay the original arguments", () => {
    expect(applyHookParams({ a: 1, b: 1 }, { params: { b: 2 } })).toEqual({ a: 1, b: 2 });
    const original = { a: 1 };
    expect(applyHookParams(original, {})).toBe(original);
  });

  it("P25 only the three decisions are valid", () => {
    expect(["allow-once", "allow-always", "deny"].every(isApprovalDecision)).toBe(true);
    expect(isApprovalDecision("approve")).toBe(false);
    expect(isApprovalDecision(null)).toBe(false);
  });
});
