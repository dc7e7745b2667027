// Cases from openclaw/openclaw src/agents/tool-policy.test.ts (names, groups, profiles, the sandbox-style matcher and
// the apply_patch/write pairing), re-expressed against lib/policy.
import { describe, expect, it } from "vitest";
import {
  expandToolGroups,
  isToolAllowedByPolicyName,
  normalizeToolName,
  resolveToolProfilePolicy,
  TOOL_GROUPS,
  type ToolPolicy,
} from "@/lib/policy";
import { allows } from "./helpers";

describe("tool-policy.test.ts: tool-policy", () => {
  it("L6 expands groups and normalizes aliases", () => {
    const set = new Set(expandToolGroups(["group:runtime", "BASH", "apply-patch", "group:fs"]));
    for (const name of ["exec", "process", "apply_patch", "read", "write", "edit"]) expect(set.has(name)).toBe(true);
    expect(set.has("bash")).toBe(false);
  });

  it("L10 resolves known profiles and ignores unknown ones", () => {
    // The reference's newest coding profile lists tools one by one (and adds cron); ours names groups. What matters
    // is what it allows: read yes, gateway no. cron stays out of ours: it is owner-only automation.
    const coding = resolveToolProfilePolicy("coding") as ToolPolicy;
    expect(isToolAllowedByPolicyName("read", coding)).toBe(true);
    expect(isToolAllowedByPolicyName("gateway", coding)).toBe(false);
    expect(resolveToolProfilePolicy("nope")).toBeUndefined();
  });

  it("L9 includes core tool groups in group:openclaw (ours: group:toolgate)", () => {
    expect(TOOL_GROUPS["group:toolgate"]).toEqual(
      expect.arrayContaining(["browser", "message", "subagents", "session_status"]),
    );
  });

  it("L25/L26 normalizes tool names and aliases", () => {
    expect(normalizeToolName(" BASH ")).toBe("exec");
    expect(normalizeToolName("apply-patch")).toBe("apply_patch");
    expect(normalizeToolName("READ")).toBe("read");
  });

  it("TOOL_POLICY_CONFORMANCE: the group table is JSON-serializable and round-trips", () => {
    expect(JSON.parse(JSON.stringify(TOOL_GROUPS))).toEqual(TOOL_GROUPS);
  });
});

describe("tool-policy.test.ts: sandbox tool policy (the shared matcher)", () => {
  it("L14 allows all tools with * allow", () => {
    expect(isToolAllowedByPolicyName("browser", { allow: ["*"], deny: [] })).toBe(true);
  });

  it("L14 denies all tools with * deny", () => {
    expect(isToolAllowedByPolicyName("read", { allow: [], deny: ["*"] })).toBe(false);
  });

  it("L15 supports wildcard patterns", () => {
    expect(isToolAllowedByPolicyName("web_fetch", { allow: ["web_*"] })).toBe(true);
    expect(isToolAllowedByPolicyName("read", { allow: ["web_*"] })).toBe(false);
  });

  it("L16 applies deny before allow", () => {
    const policy = { allow: ["*"], deny: ["web_*"] };
    expect(isToolAllowedByPolicyName("web_fetch", policy)).toBe(false);
    expect(isToolAllowedByPolicyName("read", policy)).toBe(true);
  });

  it("L17 treats empty allowlist as allow-all (with deny exceptions)", () => {
    const policy = { allow: [], deny: ["web_*"] };
    expect(isToolAllowedByPolicyName("web_fetch", policy)).toBe(false);
    expect(isToolAllowedByPolicyName("read", policy)).toBe(true);
  });

  it("expands tool groups + aliases in patterns", () => {
    const policy = { allow: ["group:fs", "BASH"], deny: ["apply_*"] };
    expect(isToolAllowedByPolicyName("read", policy)).toBe(true);
    expect(isToolAllowedByPolicyName("exec", policy)).toBe(true);
    expect(isToolAllowedByPolicyName("apply_patch", policy)).toBe(false);
  });

  it("L26 normalizes whitespace + case", () => {
    expect(isToolAllowedByPolicyName("WEB_FETCH", { allow: [" WEB_* "] })).toBe(true);
  });
});

describe("tool-policy.test.ts: resolveSandboxToolPolicyForAgent", () => {
  it("keeps allow-all semantics when allow is []", () => {
    const sandbox = { tools: { allow: [], deny: ["browser"] } };
    expect(allows({ sandbox }, { sandboxed: true }, "read")).toBe(true);
    expect(allows({ sandbox }, { sandboxed: true }, "browser")).toBe(false);
  });

  it("L24 auto-adds image to explicit allowlists unless denied: ours does not (an explicit list means what it says)", () => {
    expect(allows({ sandbox: { tools: { allow: ["read"], deny: ["browser"] } } }, { sandboxed: true }, "image")).toBe(
      false,
    );
    // The default sandbox list itself includes image, as the reference's does.
    expect(allows({}, { sandboxed: true }, "image")).toBe(true);
  });

  it("does not auto-add image when explicitly denied", () => {
    expect(allows({ sandbox: { tools: { allow: ["read"], deny: ["image"] } } }, { sandboxed: true }, "image")).toBe(
      false,
    );
  });
});

describe("tool-policy.test.ts: apply_patch / write pairing (#76749), decided on security grounds", () => {
  it("L19 does not deny apply_patch when write is denied: ours does (denying writes must not leave a patch path)", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { deny: ["write"] })).toBe(false);
    expect(isToolAllowedByPolicyName("apply_patch", { deny: ["w*"] })).toBe(false);
  });

  it("still denies apply_patch when apply_patch is explicitly denied", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { deny: ["apply_patch"] })).toBe(false);
  });

  it("L19 still allows apply_patch via write in the allow list", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { allow: ["write"], deny: [] })).toBe(true);
  });

  it("denies apply_patch when both write and apply_patch are denied", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { deny: ["write", "apply_patch"] })).toBe(false);
  });

  it("L18 exec in an allow list no longer admits apply_patch (patches would skip the exec approval rules)", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { allow: ["exec"] })).toBe(false);
    expect(isToolAllowedByPolicyName("write", { allow: ["apply_patch"] })).toBe(false);
  });

  it("the pairing holds through the effective policy, with the rule naming write", () => {
    const decision = (input: Parameters<typeof allows>[0]) => allows(input, {}, "apply_patch");
    expect(decision({ tools: { deny: ["write"] } })).toBe(false);
    expect(decision({ tools: { allow: ["write"] } })).toBe(true);
    expect(decision({ tools: { allow: ["exec"] } })).toBe(false);
  });
});
