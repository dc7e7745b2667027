// Rows of docs/requirements.md that no older test covered: defaults and deviations of the design documents, each
// asserted as this project behaves. A row id at the start of a test name names the row.
import { describe, expect, it, vi } from "vitest";
import {
  buildDenial,
  expandToolGroups,
  mergeToolPolicies,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  TOOL_GROUPS,
  TOOL_MODES,
  TOOL_PROFILES,
  ToolRegistry,
  type PolicyContext,
  type PolicyDocument,
  type ToolMeta,
  type ToolMode,
} from "@/lib/policy";
import { ctx, doc, openDoc, tool, TOOLS } from "./fixtures";

const resolve = (document: PolicyDocument, context: Partial<PolicyContext> = {}, tools: ToolMeta[] = TOOLS) =>
  resolveEffectiveToolPolicy(ctx(context), { document, tools });

describe("tool-modes-design.md: tool metadata", () => {
  it("D1 modes are exactly chat_safe and coding; the built-in groups include code, memory and world", () => {
    expect([...TOOL_MODES]).toEqual(["chat_safe", "coding"]);
    const registry = new ToolRegistry({ logger: { warn: vi.fn() } });
    registry.register(tool("current_time", ["chat_safe", "coding"], { group: "world" }));
    registry.register(tool("memory_search", ["chat_safe", "coding"], { group: "memory" }));
    registry.register(tool("read", ["coding"], { group: "code" }));
    expect(registry.meta().map((m) => [m.name, m.group])).toEqual([
      ["current_time", "world"],
      ["memory_search", "memory"],
      ["read", "code"],
    ]);
  });

  it("D2 a tool that declares no group counts as code (the most restrictive display group)", () => {
    const registry = new ToolRegistry({ logger: { warn: vi.fn() } });
    registry.register(tool("scratch", ["chat_safe"]));
    expect(registry.meta()).toEqual([expect.objectContaining({ name: "scratch", group: "code" })]);
  });

  it("D3 the group never authorizes: only allowedModes (and the layers) decide", () => {
    const registry = new ToolRegistry({ logger: { warn: vi.fn() } });
    registry.register(tool("world_no_modes", undefined, { group: "world" }));
    registry.register(tool("code_in_chat", ["chat_safe"], { group: "code" }));
    registry.register(tool("grouped_elsewhere", ["chat_safe"], { group: "memory" }));
    for (const mode of TOOL_MODES) expect(registry.checkMode("world_no_modes", mode)).toBe(false);
    expect(registry.checkMode("code_in_chat", "chat_safe")).toBe(true);
    const policy = resolveEffectiveToolPolicy(ctx({ mode: "chat_safe" }), { document: doc(), tools: registry.meta() });
    expect(policy.allowedTools).toEqual(["code_in_chat", "grouped_elsewhere"]);
    // A policy list naming a display group ("memory") is a plain name, not the tools of that group.
    const denyMemory = resolveEffectiveToolPolicy(ctx({ mode: "chat_safe" }), {
      document: doc({ tools: { deny: ["memory"] } }),
      tools: registry.meta(),
    });
    expect(denyMemory.check("grouped_elsewhere").allowed).toBe(true);
  });

  it("D5 there is no 'all modes' backdoor: without a mode the gates offer and allow nothing", () => {
    const registry = new ToolRegistry({ logger: { warn: vi.fn() } });
    registry.register(tool("current_time", ["chat_safe", "coding"], { group: "world" }));
    const none = undefined as unknown as ToolMode;
    expect(registry.listTools(none)).toEqual([]);
    expect(registry.getToolsSchema(none)).toEqual([]);
    expect(registry.checkMode("current_time", none)).toBe(false);
  });
});

describe("layered-tool-policy.md: names and plugin groups", () => {
  it("L9 group:moltbot (the document's name) is an alias of group:toolgate in every list, with no unknown-entry warning", () => {
    expect(expandToolGroups(["group:moltbot"])).toEqual(expandToolGroups(["group:toolgate"]));
    expect(expandToolGroups([" Group:MoltBot "])).toEqual([...TOOL_GROUPS["group:toolgate"]!]);
    const policy = resolve(openDoc({ tools: { deny: ["group:moltbot"] } }));
    expect(policy.check("current_time")).toMatchObject({
      allowed: false,
      layer: "global",
      rule: "deny: group:toolgate",
    });
    expect(policy.check("read").allowed).toBe(true);
    expect(policy.warnings.filter((w) => w.code === "unknown_entry")).toEqual([]);
    const allowOnly = resolve(openDoc({ teams: { ops: { allow: ["group:moltbot"] } } }), { teamIds: ["ops"] });
    expect(allowOnly.check("memory_search").allowed).toBe(true);
    expect(allowOnly.check("read").allowed).toBe(false);
  });

  it("L10 the restricted profiles keep the harmless current_time, the conversational ones ask_user too", () => {
    expect(TOOL_PROFILES.minimal.allow).toEqual(["session_status", "current_time"]);
    for (const id of ["coding", "messaging"] as const)
      expect(TOOL_PROFILES[id].allow).toEqual(expect.arrayContaining(["current_time", "ask_user"]));
    expect(TOOL_PROFILES.full).toEqual({});
  });

  it("L11 saving an unknown profile is refused, naming where it is used", () => {
    for (const input of [
      { tools: { profile: "nope" } },
      { agents: { a1: { name: "A1", tools: { profile: "nope" } } } },
      { tools: { byProvider: { openai: { profile: "nope" } } } },
    ]) {
      const parsed = parsePolicyDocument(input);
      expect(parsed.ok, JSON.stringify(input)).toBe(false);
      if (!parsed.ok) expect(parsed.issues.map((i) => i.path).join(" ")).toMatch(/profile/);
    }
    expect(parsePolicyDocument({ profiles: { mine: { allow: ["read"] } }, tools: { profile: "mine" } }).ok).toBe(true);
  });

  it("L28 a tool with an empty plugin id is no plugin tool: not in group:plugins, not governed by the mcp settings", () => {
    const tools: ToolMeta[] = [
      ...TOOLS,
      { name: "lobster", group: "plugin", allowedModes: ["chat_safe", "coding"], pluginId: "" },
    ];
    const onlyPlugins = resolve(
      doc({
        tools: { allow: ["group:plugins"] },
        system: { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
      }),
      {},
      tools,
    );
    expect(onlyPlugins.check("gh_issue").allowed).toBe(true);
    expect(onlyPlugins.check("lobster")).toMatchObject({ allowed: false, layer: "global" });
    // MCP is off by default; a real plugin tool is switched off by it, the empty-id tool is not.
    const mcpOff = resolve(doc(), {}, tools);
    expect(mcpOff.check("gh_issue")).toMatchObject({ allowed: false, layer: "system" });
    expect(mcpOff.check("lobster").allowed).toBe(true);
  });

  it("P26 apply_patch is off by default for providers other than OpenAI (and the offline model)", () => {
    const document = doc();
    expect(document.exec.applyPatchProviders).toEqual(["openai", "offline"]);
    expect(resolve(document, { provider: "anthropic" }).check("apply_patch")).toMatchObject({
      allowed: false,
      layer: "global_provider",
    });
    expect(resolve(document, { provider: "openai" }).check("apply_patch").allowed).toBe(true);
    expect(resolve(document, { provider: undefined }).check("apply_patch").allowed).toBe(false);
  });
});

describe("system-tool-policy-story.md: system tool settings", () => {
  it("Y11 an empty system server list means no server, and an agent's list can only narrow the system list", () => {
    const agentWidens = mergeToolPolicies({
      system: { mcp: { enabled: true, allowedServers: [] } },
      agent: { mcp: { allowedServers: ["github"] } },
    });
    expect(agentWidens.mcp.allowedServers).toEqual([]);
    const narrowed = mergeToolPolicies({
      system: { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
      agent: { mcp: { allowedServers: ["github", "slack"] } },
    });
    expect(narrowed.mcp.allowedServers).toEqual(["github"]);
    const agentEmpty = mergeToolPolicies({
      system: { mcp: { enabled: true, allowedServers: ["github"] } },
      agent: { mcp: { allowedServers: [] } },
    });
    expect(agentEmpty.mcp.allowedServers).toEqual([]);
    // Through the engine: the agent naming a server the system list lacks reaches nothing.
    const document = doc({
      system: { mcp: { enabled: true, allowedServers: [] } },
      agents: { a1: { name: "A1", system: { mcp: { allowedServers: ["github"] } } } },
    });
    expect(resolve(document, { agentId: "a1" }).check("gh_issue")).toMatchObject({
      allowed: false,
      layer: "system",
      errorCode: "TOOL_NOT_AVAILABLE",
    });
    const listed = doc({
      system: { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
      agents: { a1: { name: "A1", system: { mcp: { allowedServers: ["jira"] } } } },
    });
    expect(resolve(listed, { agentId: "a1" }).check("gh_issue")).toMatchObject({
      allowed: false,
      layer: "system",
      rule: "mcp.allowedServers excludes github",
    });
    expect(resolve(listed, { agentId: "a1" }).check("jira_ticket").allowed).toBe(true);
  });

  it("Y14 with fs off, file tools are neither offered nor run, even when the model names them: TOOL_NOT_AVAILABLE", () => {
    const policy = resolve(openDoc({ system: { fs: { enabled: false } } }));
    for (const name of TOOL_GROUPS["group:fs"]!) {
      expect(policy.allowedTools).not.toContain(name);
      const decision = policy.check(name);
      expect(decision).toMatchObject({
        allowed: false,
        layer: "system",
        rule: "fs.enabled: false",
        errorCode: "TOOL_NOT_AVAILABLE",
      });
      const denial = buildDenial(decision, policy.mode);
      expect(denial).toMatchObject({ ok: false, error_code: "TOOL_NOT_AVAILABLE", tool_name: name });
      expect(denial.message).toMatch(/fs/);
    }
    expect(policy.check("ask_user").allowed).toBe(true);
  });

  it("Y19 with fs off only the file tools go: exec, web, MCP and the tools of no capability keep theirs", () => {
    const on = resolve(openDoc());
    const off = resolve(openDoc({ system: { fs: { enabled: false } } }));
    const fs = new Set(TOOL_GROUPS["group:fs"]);
    expect(off.allowedTools).toEqual(on.allowedTools.filter((name) => !fs.has(name)));
    expect(off.allowedTools).toEqual(
      expect.arrayContaining(["exec", "web_search", "gh_issue", "current_time", "ask_user"]),
    );
  });
});
