import { describe, expect, it } from "vitest";
import { applyOwnerOnlyToolPolicy, applyToolPolicyPipeline, TOOL_PROFILES } from "@/lib/policy";

const tools = [
  { name: "read" },
  { name: "exec" },
  { name: "web_search" },
  { name: "session_status" },
  { name: "cron", ownerOnly: true },
  { name: "gh_issue", pluginId: "github" },
];
const names = (list: Array<{ name: string }>) => list.map((t) => t.name);

describe("applyToolPolicyPipeline", () => {
  it("P3 applies labelled steps in order and records which step removed what", () => {
    const result = applyToolPolicyPipeline(tools, [
      { policy: TOOL_PROFILES.coding, label: "tools.profile (coding)", stripPluginOnlyAllowlist: true },
      { policy: { deny: ["exec"] }, label: "tools.global" },
      { policy: undefined, label: "tools.agent (a1)" },
      { policy: { deny: ["read"] }, label: "sandbox tools.allow" },
    ]);
    expect(names(result.tools)).toEqual(["session_status"]);
    expect(result.removed).toEqual([
      { name: "web_search", label: "tools.profile (coding)", rule: expect.stringMatching(/^not in allow: group:fs/) },
      { name: "cron", label: "tools.profile (coding)", rule: expect.stringMatching(/^not in allow/) },
      { name: "gh_issue", label: "tools.profile (coding)", rule: expect.stringMatching(/^not in allow/) },
      { name: "exec", label: "tools.global", rule: "deny: exec" },
      { name: "read", label: "sandbox tools.allow", rule: "deny: read" },
    ]);
  });

  it("P4 keeps a plugin-only allow list (fail closed) and warns only on flagged steps", () => {
    const flagged = applyToolPolicyPipeline(tools, [
      { policy: { allow: ["github"] }, label: "group tools.allow", stripPluginOnlyAllowlist: true },
    ]);
    expect(names(flagged.tools)).toEqual(["gh_issue"]);
    expect(flagged.warnings).toEqual([
      expect.objectContaining({ code: "plugin_only_allowlist", source: "group tools.allow", entries: ["github"] }),
    ]);
    const unflagged = applyToolPolicyPipeline(tools, [{ policy: { allow: ["github"] }, label: "tools.global" }]);
    expect(names(unflagged.tools)).toEqual(["gh_issue"]);
    expect(unflagged.warnings).toEqual([]);
  });

  it("an allow list with a core entry is not plugin-only", () => {
    const result = applyToolPolicyPipeline(tools, [
      { policy: { allow: ["github", "read"] }, label: "tools.profile (x)", stripPluginOnlyAllowlist: true },
    ]);
    expect(result.warnings.map((w) => w.code)).not.toContain("plugin_only_allowlist");
    expect(names(result.tools)).toEqual(["read", "gh_issue"]);
  });

  it("warns about entries that name no tool", () => {
    const result = applyToolPolicyPipeline(tools, [
      { policy: { deny: ["reed", "group:fs", "web_*", "nothing_*"] }, label: "tools.global" },
    ]);
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: "unknown_entry", entries: ["reed", "nothing_*"] }),
    ]);
  });

  it("P1 owner-only runs before the pipeline in the reference order", () => {
    const owned = applyOwnerOnlyToolPolicy(tools, false);
    const result = applyToolPolicyPipeline(owned, [{ policy: { allow: ["*"] }, label: "tools.global" }]);
    expect(names(result.tools)).not.toContain("cron");
  });
});
