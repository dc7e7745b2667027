// Cases from openclaw/openclaw src/agents/tool-policy-pipeline.test.ts and tool-policy.plugin-only-allowlist.test.ts.
// Where the reference strips a plugin-only allow list, ours keeps it (fail closed) and reports it; where it logs,
// ours returns warnings and removals as data.
import { describe, expect, it } from "vitest";
import {
  analyzeAllowlist,
  applyToolPolicyPipeline,
  buildPluginToolGroups,
  compileToolPolicy,
  type PluginToolGroups,
} from "@/lib/policy";
import { policyFor } from "./helpers";

type Tool = { name: string; pluginId?: string };
const names = (tools: Tool[]) => tools.map((t) => t.name);

describe("tool-policy-pipeline.test.ts: tool-policy-pipeline", () => {
  it("P4 preserves plugin-only allowlists instead of silently stripping them", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "plugin_tool", pluginId: "foo" }],
      [{ policy: { allow: ["plugin_tool"] }, label: "tools.allow", stripPluginOnlyAllowlist: true }],
    );
    expect(names(result.tools)).toEqual(["plugin_tool"]);
    expect(result.warnings).toEqual([
      expect.objectContaining({
        code: "plugin_only_allowlist",
        source: "tools.allow",
        entries: ["plugin_tool"],
        message: expect.stringContaining("plugin_tool"),
      }),
    ]);
  });

  it("warns about unknown allowlist entries", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }],
      [{ policy: { allow: ["wat"] }, label: "tools.allow", stripPluginOnlyAllowlist: true }],
    );
    expect(result.warnings).toEqual([
      expect.objectContaining({ code: "unknown_entry", source: "tools.allow", entries: ["wat"] }),
    ]);
    // An unknown entry is not a plugin entry: no plugin-only warning for it.
    expect(result.warnings.some((w) => w.code === "plugin_only_allowlist")).toBe(false);
  });

  it("still warns for explicit allowlists that mention unavailable gated core tools: ours treats built-in names as vocabulary", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }],
      [{ policy: { allow: ["apply_patch"] }, label: "tools.allow", stripPluginOnlyAllowlist: true }],
    );
    expect(result.warnings).toEqual([]);
    expect(result.tools).toEqual([]);
  });

  it("applies allowlist filtering when core tools are explicitly listed", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "process" }],
      [{ policy: { allow: ["exec"] }, label: "tools.allow", stripPluginOnlyAllowlist: true }],
    );
    expect(names(result.tools)).toEqual(["exec"]);
  });

  it("applies deny filtering after allow filtering", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "process" }],
      [
        {
          policy: { allow: ["exec", "process"], deny: ["process"] },
          label: "tools.allow",
          stripPluginOnlyAllowlist: true,
        },
      ],
    );
    expect(names(result.tools)).toEqual(["exec"]);
  });

  it("audits the policy rule that removes tools", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "browser" }, { name: "write" }, { name: "read" }],
      [{ policy: { allow: ["exec", "read"] }, label: "agent tools.allow" }],
    );
    expect(result.removed).toEqual([
      { name: "browser", label: "agent tools.allow", rule: "not in allow: exec, read" },
      { name: "write", label: "agent tools.allow", rule: "not in allow: exec, read" },
    ]);
  });

  it("audits deny removals with the deny rule", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "browser" }],
      [{ policy: { deny: ["browser"] }, label: "tools.allow" }],
    );
    expect(result.removed).toEqual([{ name: "browser", label: "tools.allow", rule: "deny: browser" }]);
  });

  it("splits mixed allow and deny policy audit entries by cause", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec" }, { name: "browser" }, { name: "write" }],
      [{ policy: { allow: ["exec"], deny: ["browser"] }, label: "agents.worker.tools.allow" }],
    );
    expect(result.removed.map((r) => [r.name, r.rule])).toEqual([
      ["browser", "deny: browser"],
      ["write", "not in allow: exec"],
    ]);
  });

  it("does not audit policy steps that leave the tool surface unchanged", () => {
    expect(
      applyToolPolicyPipeline<Tool>([{ name: "exec" }], [{ policy: { allow: ["exec"] }, label: "tools.allow" }])
        .removed,
    ).toEqual([]);
  });

  it("keeps tool names with control characters as data (no log line to inject into)", () => {
    const result = applyToolPolicyPipeline<Tool>(
      [{ name: "exec\nbad" }],
      [{ policy: { allow: ["read"] }, label: "agents.worker\nbad.tools.allow" }],
    );
    expect(result.removed).toEqual([
      { name: "exec\nbad", label: "agents.worker\nbad.tools.allow", rule: "not in allow: read" },
    ]);
  });
});

const pluginGroups: PluginToolGroups = {
  all: ["lobster", "workflow_tool"],
  byPlugin: new Map([["lobster", ["lobster", "workflow_tool"]]]),
};
const emptyPlugins: PluginToolGroups = { all: [], byPlugin: new Map() };
const analyze = (
  allow: string[],
  groups: PluginToolGroups,
  core = new Set(["read", "write", "exec", "session_status"]),
) => analyzeAllowlist(compileToolPolicy({ allow }, groups).allow, groups, core);

describe("tool-policy.plugin-only-allowlist.test.ts: analyzeAllowlistByToolType", () => {
  it("preserves allowlist when it only targets plugin tools", () => {
    expect(analyze(["lobster"], pluginGroups)).toEqual({ pluginOnly: true, pluginEntries: ["lobster"], unknown: [] });
  });

  it("preserves allowlist when it only targets plugin groups", () => {
    expect(analyze(["group:plugins"], pluginGroups)).toEqual({
      pluginOnly: true,
      pluginEntries: ["group:plugins"],
      unknown: [],
    });
  });

  it('keeps allowlist when it uses "*"', () => {
    expect(analyze(["*"], pluginGroups)).toEqual({ pluginOnly: false, pluginEntries: [], unknown: [] });
  });

  it("keeps allowlist when it mixes plugin and core entries", () => {
    expect(analyze(["lobster", "read"], pluginGroups)).toMatchObject({ pluginOnly: false, unknown: [] });
  });

  it("a plugin tool named by a wildcard counts as a plugin entry", () => {
    expect(analyze(["workflow_*"], pluginGroups)).toEqual({
      pluginOnly: true,
      pluginEntries: ["workflow_*"],
      unknown: [],
    });
  });

  it("preserves allowlist with unknown entries when no core tools match (not plugin-only: nothing is a plugin)", () => {
    expect(analyze(["lobster"], emptyPlugins)).toEqual({ pluginOnly: false, pluginEntries: [], unknown: ["lobster"] });
  });

  it("keeps allowlist with core tools and reports unknown entries", () => {
    expect(analyze(["read", "lobster"], emptyPlugins)).toEqual({
      pluginOnly: false,
      pluginEntries: [],
      unknown: ["lobster"],
    });
  });

  it("does not mark unavailable core entries as plugin-only", () => {
    // The reference also calls apply_patch "unknown" when not registered; ours knows every built-in name.
    expect(analyze(["apply_patch"], pluginGroups, new Set(["read", "apply_patch"]))).toEqual({
      pluginOnly: false,
      pluginEntries: [],
      unknown: [],
    });
  });

  it("L28 ignores empty plugin ids when building groups (ours: an empty plugin id is no plugin at all)", () => {
    const groups = buildPluginToolGroups([{ name: "lobster", pluginId: "" }]);
    expect(groups.all).toEqual([]);
    expect(groups.byPlugin.size).toBe(0);
  });

  it("the effective policy keeps a plugin-only team list (fail closed) and names its plugin entries in the warning", () => {
    const policy = policyFor({ teams: { ops: { allow: ["lobster", "nothing_here"] } } }, { teamIds: ["ops"] });
    expect(policy.check("read").allowed).toBe(false);
    expect(policy.check("lobster").allowed).toBe(true);
    expect(policy.warnings).toContainEqual(
      expect.objectContaining({ code: "plugin_only_allowlist", source: "teams.ops", entries: ["lobster"] }),
    );
    expect(policy.warnings).toContainEqual(
      expect.objectContaining({ code: "unknown_entry", source: "teams.ops", entries: ["nothing_here"] }),
    );
  });
});
