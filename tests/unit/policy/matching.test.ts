import { describe, expect, it } from "vitest";
import {
  applyOwnerOnlyToolPolicy,
  buildPluginToolGroups,
  filterToolsByPolicy,
  isToolAllowedByPolicies,
  isToolAllowedByPolicyName,
  makeToolPolicyMatcher,
  type ToolPolicy,
} from "@/lib/policy";

const plugins = buildPluginToolGroups([
  { name: "gh_issue", pluginId: "github" },
  { name: "jira_ticket", pluginId: "jira" },
]);

type Row = [string, ToolPolicy, string, boolean];
const rows: Row[] = [
  ["empty allow allows all", { allow: [] }, "exec", true],
  ["no lists allows all", {}, "anything", true],
  ["* allows all", { allow: ["*"] }, "exec", true],
  ["exact allow", { allow: ["read"] }, "read", true],
  ["not listed is denied", { allow: ["read"] }, "write", false],
  ["prefix wildcard", { allow: ["web_*"] }, "web_fetch", true],
  ["prefix wildcard misses", { allow: ["web_*"] }, "memory_get", false],
  ["infix wildcard", { allow: ["sessions_*t"] }, "sessions_list", true],
  ["wildcard is anchored", { allow: ["eb_*"] }, "web_fetch", false],
  ["deny beats allow (exact)", { allow: ["read"], deny: ["read"] }, "read", false],
  ["deny beats allow (*)", { allow: ["*"], deny: ["exec"] }, "exec", false],
  ["deny * denies all", { deny: ["*"] }, "current_time", false],
  ["deny group", { deny: ["group:fs"] }, "edit", false],
  ["deny group spares others", { deny: ["group:fs"] }, "exec", true],
  ["allow group", { allow: ["group:runtime"] }, "process", true],
  ["alias in list: bash means exec", { deny: ["bash"] }, "exec", false],
  ["alias in name: bash is exec", { allow: ["exec"] }, "bash", true],
  ["alias apply-patch", { deny: ["apply-patch"] }, "apply_patch", false],
  ["case and spaces", { allow: [" READ "] }, "Read", true],
  ["alsoAllow widens an allow list", { allow: ["read"], alsoAllow: ["web_search"] }, "web_search", true],
  ["alsoAllow alone does not restrict", { alsoAllow: ["web_search"] }, "exec", true],
  ["alsoAllow does not beat deny", { allow: ["read"], alsoAllow: ["exec"], deny: ["exec"] }, "exec", false],
  [
    "exec in allow no longer admits apply_patch (it would bypass exec approvals)",
    { allow: ["exec"] },
    "apply_patch",
    false,
  ],
  ["write in allow admits apply_patch", { allow: ["write"] }, "apply_patch", true],
  ["deny apply_patch still wins over write", { allow: ["write"], deny: ["apply_patch"] }, "apply_patch", false],
  ["deny write also removes apply_patch", { deny: ["write"] }, "apply_patch", false],
  ["group:plugins allows plugin tools", { allow: ["group:plugins"] }, "gh_issue", true],
  ["group:plugins does not allow core", { allow: ["group:plugins"] }, "read", false],
  ["plugin id allows its tools", { allow: ["github"] }, "gh_issue", true],
  ["plugin id excludes other plugins", { allow: ["github"] }, "jira_ticket", false],
  ["deny plugin id", { deny: ["jira"] }, "jira_ticket", false],
];

describe("policy matching", () => {
  it.each(rows)("%s", (_label, policy, name, expected) => {
    expect(isToolAllowedByPolicyName(name, policy, plugins)).toBe(expected);
    expect(makeToolPolicyMatcher(policy, plugins)(name)).toBe(expected);
  });

  it("L7 isToolAllowedByPolicies requires every policy; undefined policies allow", () => {
    expect(isToolAllowedByPolicies("read", [undefined, { allow: ["read"] }, { deny: ["exec"] }])).toBe(true);
    expect(isToolAllowedByPolicies("read", [{ allow: ["read"] }, { deny: ["group:fs"] }])).toBe(false);
    expect(isToolAllowedByPolicies("read", [])).toBe(true);
  });

  it("L7 filterToolsByPolicy keeps order and returns all without a policy", () => {
    const tools = [{ name: "read" }, { name: "exec" }, { name: "web_search" }];
    expect(filterToolsByPolicy(tools, { deny: ["exec"] }).map((t) => t.name)).toEqual(["read", "web_search"]);
    expect(filterToolsByPolicy(tools).map((t) => t.name)).toEqual(["read", "exec", "web_search"]);
  });

  it("P2 owner-only tools are kept only for a sender explicitly marked as owner", () => {
    const tools = [{ name: "cron", ownerOnly: true }, { name: "read" }];
    expect(applyOwnerOnlyToolPolicy(tools, false).map((t) => t.name)).toEqual(["read"]);
    expect(applyOwnerOnlyToolPolicy(tools, true).map((t) => t.name)).toEqual(["cron", "read"]);
    expect(applyOwnerOnlyToolPolicy(tools, "yes" as unknown as boolean).map((t) => t.name)).toEqual(["read"]);
  });
});
