import { describe, expect, it } from "vitest";
import {
  SUBAGENT_TOOL_DENY_ALWAYS,
  expandToolGroups,
  buildPluginToolGroups,
  normalizeToolName,
  resolveToolProfilePolicy,
  TOOL_GROUPS,
  TOOL_PROFILES,
} from "@/lib/policy";

describe("L25/L26 normalizeToolName", () => {
  it.each([
    ["read", "read"],
    ["  Read  ", "read"],
    ["EXEC", "exec"],
    ["bash", "exec"],
    [" BASH ", "exec"],
    ["apply-patch", "apply_patch"],
    ["Apply-Patch", "apply_patch"],
    ["apply_patch", "apply_patch"],
    ["web_*", "web_*"],
  ])("%j → %j", (input, expected) => {
    expect(normalizeToolName(input)).toBe(expected);
  });
});

describe("L8 TOOL_GROUPS", () => {
  it.each([
    ["group:fs", ["read", "write", "edit", "apply_patch"]],
    ["group:runtime", ["exec", "process"]],
    ["group:memory", ["memory_search", "memory_get"]],
    ["group:web", ["web_search", "web_fetch"]],
    [
      "group:sessions",
      ["sessions_list", "sessions_history", "sessions_send", "sessions_spawn", "subagents", "session_status"],
    ],
    ["group:messaging", ["message"]],
    ["group:automation", ["cron", "gateway"]],
  ])("%s has the reference members", (group, members) => {
    expect(TOOL_GROUPS[group]).toEqual(members);
  });

  it("puts the ask_user widget in group:ui and both built-ins in the native group", () => {
    expect(TOOL_GROUPS["group:ui"]).toContain("ask_user");
    expect(TOOL_GROUPS["group:toolgate"]).toEqual(expect.arrayContaining(["ask_user", "current_time"]));
    expect(TOOL_GROUPS["group:fs"]).not.toContain("ask_user");
  });
});

describe("L6 expandToolGroups", () => {
  const plugins = buildPluginToolGroups([
    { name: "gh_issue", pluginId: "github" },
    { name: "GH_PR", pluginId: "GitHub" },
    { name: "jira_ticket", pluginId: "jira" },
    { name: "read" },
  ]);

  it.each([
    [["group:fs"], ["read", "write", "edit", "apply_patch"]],
    [
      ["bash", "group:runtime"],
      ["exec", "process"],
    ],
    [
      ["Apply-Patch", "group:fs"],
      ["apply_patch", "read", "write", "edit"],
    ],
    [["group:plugins"], ["gh_issue", "gh_pr", "jira_ticket"]],
    [["github"], ["gh_issue", "gh_pr"]],
    [
      ["jira", "web_*"],
      ["jira_ticket", "web_*"],
    ],
    [["unknown_tool"], ["unknown_tool"]],
    [[], []],
  ])("%j → %j", (entries, expected) => {
    expect(expandToolGroups(entries, plugins)).toEqual(expected);
  });

  it("without plugin groups, group:plugins expands to nothing and a plugin id stays a plain name", () => {
    expect(expandToolGroups(["group:plugins", "github"])).toEqual(["github"]);
  });
});

describe("L10 profiles", () => {
  it("full and unknown profiles resolve to no restriction", () => {
    expect(resolveToolProfilePolicy("full")).toBeUndefined();
    expect(resolveToolProfilePolicy("nope")).toBeUndefined();
    expect(resolveToolProfilePolicy(undefined)).toBeUndefined();
  });

  it("built-in profiles keep the reference lists", () => {
    expect(resolveToolProfilePolicy("minimal")?.allow).toContain("session_status");
    expect(resolveToolProfilePolicy("coding")?.allow).toEqual(
      expect.arrayContaining(["group:fs", "group:runtime", "group:sessions", "group:memory", "image"]),
    );
    expect(TOOL_PROFILES.messaging.allow).toEqual(
      expect.arrayContaining([
        "group:messaging",
        "sessions_list",
        "sessions_history",
        "sessions_send",
        "session_status",
      ]),
    );
  });

  it("a custom profile is found by id", () => {
    expect(resolveToolProfilePolicy("readonly", { readonly: { allow: ["read"] } })).toEqual({ allow: ["read"] });
  });

  it("L12 the subagent hard-deny list is the reference's newest list (message included, memory tools not)", () => {
    expect([...SUBAGENT_TOOL_DENY_ALWAYS].sort()).toEqual(
      ["gateway", "agents_list", "whatsapp_login", "session_status", "cron", "message", "sessions_send"].sort(),
    );
  });
});
