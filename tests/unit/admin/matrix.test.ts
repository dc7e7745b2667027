import { describe, expect, it } from "vitest";
import { buildPolicyMatrix, diffMatrices, type MatrixContext } from "@/lib/admin/matrix";
import { doc, TOOLS } from "./fixtures";

const admin: MatrixContext = { roles: ["member", "owner", "admin"], senderIsOwner: true, provider: "openai" };

function cell(matrix: ReturnType<typeof buildPolicyMatrix>, tool: string, mode: "chat_safe" | "coding") {
  const row = matrix.groups.flatMap((g) => g.rows).find((r) => r.name === tool);
  if (!row) throw new Error(`no row ${tool}`);
  return row.cells[mode];
}

describe("policy matrix", () => {
  it("groups tools, one column per mode, with the mode gate's provenance", () => {
    const matrix = buildPolicyMatrix({ context: admin, document: doc(), tools: TOOLS });
    expect(matrix.columns.map((c) => c.mode)).toEqual(["chat_safe", "coding"]);
    expect(matrix.groups.map((g) => g.group)).toEqual(["code", "memory", "plugin", "runtime", "world"]);
    expect(cell(matrix, "read", "chat_safe")).toMatchObject({
      status: "denied",
      layer: "mode",
      errorCode: "MODE_DENIED",
    });
    expect(cell(matrix, "read", "coding").status).toBe("allowed");
  });

  it("names the deciding layer, rule and source of a team deny, with the whole chain", () => {
    const document = doc({ teams: { ops: { deny: ["exec"] } } });
    const matrix = buildPolicyMatrix({ context: { ...admin, teamIds: ["ops"] }, document, tools: TOOLS });
    const c = cell(matrix, "exec", "coding");
    expect(c).toMatchObject({ status: "denied", layer: "group", errorCode: "POLICY_DENIED" });
    expect(c.source).toContain("ops");
    expect(c.rule).toContain("exec");
    expect(c.chain.find((e) => e.layer === "group")?.outcome).toBe("removed");
    // Another team is not affected.
    // (Not denied there: it waits for an owner under the default exec settings, see the exec cell tests.)
    expect(
      cell(buildPolicyMatrix({ context: { ...admin, teamIds: ["dev"] }, document, tools: TOOLS }), "exec", "coding")
        .status,
    ).toBe("ask");
  });

  it("shows askRules as needs approval", () => {
    const matrix = buildPolicyMatrix({ context: admin, document: doc({ askRules: ["write"] }), tools: TOOLS });
    expect(cell(matrix, "write", "coding")).toMatchObject({ status: "ask", source: "askRules" });
  });

  it("marks a column whose mode the context is not granted", () => {
    const matrix = buildPolicyMatrix({
      context: { roles: ["member"], senderIsOwner: false },
      document: doc(),
      tools: TOOLS,
    });
    expect(matrix.columns.find((c) => c.mode === "coding")).toEqual({
      mode: "coding",
      granted: false,
      evaluatedAs: "chat_safe",
    });
  });

  it("lists exactly the cells that flip between two documents", () => {
    const saved = buildPolicyMatrix({ context: admin, document: doc(), tools: TOOLS });
    const draft = buildPolicyMatrix({
      context: admin,
      document: doc({ tools: { deny: ["current_time"] } }),
      tools: TOOLS,
    });
    expect(diffMatrices(saved, draft)).toEqual([
      { tool: "current_time", mode: "chat_safe", from: "allowed", to: "denied" },
      { tool: "current_time", mode: "coding", from: "allowed", to: "denied" },
    ]);
    expect(diffMatrices(saved, saved)).toEqual([]);
  });
});
