// A row id at the start of a test name (a letter and a number) names a row of docs/requirements.md.
import { describe, expect, it } from "vitest";
import { buildDenial, resolveEffectiveToolPolicy, type PolicyContext, type PolicyDocumentInput } from "@/lib/policy";
import { ctx, openDoc, TOOLS } from "./fixtures";

const decide = (input: PolicyDocumentInput, context: Partial<PolicyContext>) =>
  resolveEffectiveToolPolicy(ctx(context), { document: openDoc(input), tools: TOOLS });

describe("buildDenial", () => {
  it("A5 MODE_DENIED in chat_safe returns the structured result with a reachable next action", () => {
    const policy = decide({}, { roles: ["member"], senderIsOwner: false, mode: "chat_safe" });
    const denial = buildDenial(policy.check("read"), "chat_safe", { grantedModes: policy.grantedModes });
    expect(denial).toEqual({
      ok: false,
      error_code: "MODE_DENIED",
      tool_name: "read",
      mode: "chat_safe",
      message: "read is not allowed in chat_safe mode.",
      next_action: "Ask an admin to grant the coding mode, then switch this session to coding.",
    });
  });

  it("D6 MODE_DENIED for a sender who already holds coding says to switch", () => {
    const policy = decide({}, { mode: "chat_safe" });
    expect(buildDenial(policy.check("read"), "chat_safe", { grantedModes: policy.grantedModes }).next_action).toBe(
      "Switch this session to coding mode, then try again.",
    );
  });

  it("D6 MODE_DENIED for a tool with no mode at all does not promise a mode switch", () => {
    const policy = resolveEffectiveToolPolicy(ctx(), { document: openDoc(), tools: [{ name: "legacy" }] });
    const denial = buildDenial(policy.check("legacy"), "coding");
    expect(denial.error_code).toBe("MODE_DENIED");
    expect(denial.next_action).not.toMatch(/switch/i);
  });

  it("POLICY_DENIED names the layer and the rule", () => {
    const policy = decide({ teams: { ops: { deny: ["exec"] } } }, { teamIds: ["ops"] });
    const denial = buildDenial(policy.check("exec"), "coding");
    expect(denial.error_code).toBe("POLICY_DENIED");
    expect(denial.message).toBe("exec was denied by the team/sender policy (deny: exec).");
    expect(denial.next_action).toContain("teams.ops");
  });

  it("Y3 TOOL_NOT_AVAILABLE names the switched-off capability", () => {
    const policy = decide({ system: { fs: { enabled: false } } }, {});
    const denial = buildDenial(policy.check("read"), "coding");
    expect(denial).toMatchObject({ error_code: "TOOL_NOT_AVAILABLE", tool_name: "read" });
    expect(denial.next_action).toContain("file system tools");
    const mcp = buildDenial(
      decide({ system: { mcp: { allowedServers: ["github"] } } }, {}).check("jira_ticket"),
      "coding",
    );
    expect(mcp.next_action).toContain("MCP server");
  });

  it("TOOL_NOT_FOUND for a hallucinated name", () => {
    const denial = buildDenial(decide({}, {}).check("write_file"), "coding");
    expect(denial).toMatchObject({ error_code: "TOOL_NOT_FOUND", tool_name: "write_file" });
  });

  it("C1/C2 every field is non-empty and the result is deterministic", () => {
    const a = buildDenial(decide({}, { mode: "chat_safe" }).check("read"), "chat_safe");
    const b = buildDenial(decide({}, { mode: "chat_safe" }).check("read"), "chat_safe");
    expect(a).toEqual(b);
    for (const value of Object.values(a)) if (typeof value === "string") expect(value.length).toBeGreaterThan(0);
  });

  it("refuses to build a denial for an allowed tool", () => {
    expect(() => buildDenial(decide({}, {}).check("current_time"), "coding")).toThrow(/allowed/);
  });
});
