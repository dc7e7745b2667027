// Plugin tools from MCP servers under the engine: the document's server entries, the tool's own approval flag,
// the system layer (mcp.enabled, allowedServers), plugin groups, and the plugin-only allow list warning.
import { describe, expect, it } from "vitest";
import {
  ASK_BY_TOOL_RULE,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  type McpServerConfigInput,
  type PolicyContext,
  type PolicyDocumentInput,
  type ToolMeta,
} from "@/lib/policy";
import { checkDraft } from "@/lib/admin/draft-checks";
import { doc } from "./fixtures";

const CORE: ToolMeta[] = [
  { name: "current_time", group: "world", allowedModes: ["chat_safe", "coding"] },
  { name: "read", group: "code", allowedModes: ["coding"] },
];
const PLUGIN: ToolMeta[] = [
  { name: "mcp__fixture__echo", group: "plugin", allowedModes: ["coding"], pluginId: "fixture" },
  { name: "mcp__fixture__add", group: "plugin", allowedModes: ["coding"], pluginId: "fixture" },
  {
    name: "mcp__fixture__delete_everything",
    group: "plugin",
    allowedModes: ["coding"],
    pluginId: "fixture",
    requiresApproval: true,
  },
  { name: "mcp__other__ping", group: "plugin", allowedModes: ["coding"], pluginId: "other" },
];
const TOOLS = [...CORE, ...PLUGIN];
const member: PolicyContext = {
  roles: ["member"],
  senderIsOwner: false,
  mode: "coding",
  senderId: "u1",
  provider: "offline",
};
const server: McpServerConfigInput = {
  id: "fixture",
  transport: { type: "stdio", command: "node", args: ["server.mjs"] },
};

function resolve(input: PolicyDocumentInput, context: PolicyContext = member, tools: ToolMeta[] = TOOLS) {
  const base: PolicyDocumentInput = {
    modeGrants: { users: { u1: ["chat_safe", "coding"] } },
    system: { mcp: { enabled: true, allowedServers: ["fixture", "other"] } },
  };
  return resolveEffectiveToolPolicy(context, { document: doc({ ...base, ...input }), tools });
}

describe("mcpServers in the policy document", () => {
  it("defaults are fail-closed: no modes, not owner-only, 15 s timeout, no forced approval", () => {
    const parsed = doc({ mcpServers: [server] });
    expect(parsed.mcpServers[0]).toMatchObject({
      id: "fixture",
      allowedModes: [],
      ownerOnly: false,
      tools: {},
      timeoutMs: 15_000,
      requireApprovalForDestructive: false,
    });
    // Sandboxed, without network, unless the admin widens it (issue 36).
    expect(parsed.mcpServers[0]?.transport).toEqual({
      type: "stdio",
      command: "node",
      args: ["server.mjs"],
      sandbox: { network: false, readOnlyPaths: [], writablePaths: [] },
    });
  });

  it("accepts an HTTP server with encrypted headers and per-tool overrides", () => {
    const result = parsePolicyDocument({
      mcpServers: [
        {
          id: "remote-1",
          transport: { type: "http", url: "https://mcp.example.com/mcp", headersEncrypted: "v1:abc" },
          allowedModes: ["coding"],
          tools: { add: { allowedModes: [], ownerOnly: true } },
          timeoutMs: 2000,
          requireApprovalForDestructive: true,
        },
      ],
    });
    expect(result.ok).toBe(true);
  });

  it.each([
    ["a duplicate id", [server, server], "mcpServers.1.id"],
    ["an id with a double underscore", [{ ...server, id: "a__b" }], "mcpServers.0.id"],
    ["an upper-case id", [{ ...server, id: "Fixture" }], "mcpServers.0.id"],
    // Issue 36: `vic_` + `out` and `vic` + `_out` were both mcp__vic___out.
    ["an id ending in '_'", [{ ...server, id: "vic_" }], "mcpServers.0.id"],
    ["an id starting with '_'", [{ ...server, id: "_vic" }], "mcpServers.0.id"],
    [
      "an unknown transport",
      [{ ...server, transport: { type: "sse", url: "http://x" } }],
      "mcpServers.0.transport.type",
    ],
    [
      "a non-http url",
      [{ ...server, transport: { type: "http", url: "file:///etc/passwd" } }],
      "mcpServers.0.transport.url",
    ],
    ["an unknown key", [{ ...server, secret: "x" }], "mcpServers.0.secret"],
    ["an unknown mode", [{ ...server, allowedModes: ["root"] }], "mcpServers.0.allowedModes.0"],
  ])("rejects %s", (_label, mcpServers, path) => {
    const result = parsePolicyDocument({ mcpServers });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues.map((i) => i.path)).toContain(path);
  });
});

describe("requiresApproval on a tool", () => {
  it("makes the tool ask, like an askRules entry, naming the tool as the source", () => {
    const policy = resolve({});
    const decision = policy.check("mcp__fixture__delete_everything");
    expect(decision).toMatchObject({ allowed: true, effect: "ask", rule: ASK_BY_TOOL_RULE, source: "tool" });
    expect(policy.check("mcp__fixture__add").effect).toBe("allow");
  });

  it("an askRules entry still wins for the rule it names, and a removed tool is denied, not asked", () => {
    expect(resolve({ askRules: ["fixture"] }).check("mcp__fixture__delete_everything")).toMatchObject({
      effect: "ask",
      rule: "ask: fixture",
      source: "askRules",
    });
    expect(
      resolve({ tools: { deny: ["mcp__fixture__delete_everything"] } }).check("mcp__fixture__delete_everything"),
    ).toMatchObject({ allowed: false, effect: "deny" });
  });
});

describe("the system layer for MCP", () => {
  it("Y10 MCP disabled (the default) removes every plugin tool with TOOL_NOT_AVAILABLE and keeps core tools", () => {
    const policy = resolveEffectiveToolPolicy(member, {
      document: doc({ modeGrants: { users: { u1: ["chat_safe", "coding"] } } }),
      tools: TOOLS,
    });
    for (const tool of PLUGIN)
      expect(policy.check(tool.name)).toMatchObject({
        allowed: false,
        layer: "system",
        errorCode: "TOOL_NOT_AVAILABLE",
        capability: "mcp",
        rule: "mcp.enabled: false",
      });
    expect(policy.check("read").allowed).toBe(true);
  });

  it("Y10 enabled with empty allowedServers uses no server", () => {
    const policy = resolve({ system: { mcp: { enabled: true, allowedServers: [] } } });
    expect(policy.allowedTools.filter((n) => n.startsWith("mcp__"))).toEqual([]);
    expect(policy.check("mcp__fixture__add").rule).toBe("mcp.allowedServers excludes fixture");
  });

  it("allowedServers keeps exactly the listed servers' tools; an agent can only narrow the list", () => {
    const policy = resolve({ system: { mcp: { enabled: true, allowedServers: ["fixture"] } } });
    expect(policy.check("mcp__fixture__add").allowed).toBe(true);
    expect(policy.check("mcp__other__ping")).toMatchObject({ allowed: false, errorCode: "TOOL_NOT_AVAILABLE" });
    const narrowed = resolve(
      { agents: { a: { name: "A", system: { mcp: { allowedServers: ["other"] } } } } },
      { ...member, agentId: "a" },
    );
    expect(narrowed.check("mcp__fixture__add").allowed).toBe(false);
    expect(narrowed.check("mcp__other__ping").allowed).toBe(true);
  });

  it("in chat_safe a plugin tool granted only coding is MODE_DENIED", () => {
    const policy = resolve({}, { ...member, mode: "chat_safe" });
    expect(policy.check("mcp__fixture__add")).toMatchObject({
      allowed: false,
      layer: "mode",
      errorCode: "MODE_DENIED",
    });
  });
});

describe("L27 plugin groups and wildcards in every layer", () => {
  it.each<[string, PolicyDocumentInput, string[]]>([
    ["group:plugins", { tools: { deny: ["group:plugins"] } }, []],
    ["the server id", { tools: { deny: ["fixture"] } }, ["mcp__other__ping"]],
    ["a wildcard", { tools: { deny: ["mcp__fixture__*"] } }, ["mcp__other__ping"]],
    ["a team deny", { teams: { ops: { deny: ["fixture"] } } }, ["mcp__other__ping"]],
    ["a sender allow", { senders: { u1: { allow: ["current_time", "read", "other"] } } }, ["mcp__other__ping"]],
  ])("%s", (_label, input, expected) => {
    const policy = resolve(input, { ...member, teamIds: ["ops"] });
    expect(policy.allowedTools.filter((n) => n.startsWith("mcp__"))).toEqual(expected);
  });

  it("with no rule against them, plugin tools granted coding are exposed in coding", () => {
    expect(resolve({}).allowedTools).toEqual(expect.arrayContaining(["mcp__fixture__add", "mcp__other__ping"]));
  });
});

describe("a plugin-only allow list", () => {
  it("P4 is kept (fail closed) and reported as a warning, and the editor asks for confirmation", () => {
    const input: PolicyDocumentInput = {
      teams: { ops: { allow: ["mcp__fixture__*"] } },
      system: { mcp: { enabled: true, allowedServers: ["fixture"] } },
    };
    const policy = resolve(input, { ...member, teamIds: ["ops"] });
    expect(policy.warnings).toContainEqual(
      expect.objectContaining({ code: "plugin_only_allowlist", source: "teams.ops" }),
    );
    expect(policy.check("read")).toMatchObject({ allowed: false, layer: "group" });
    expect(policy.check("mcp__fixture__add").allowed).toBe(true);
    const draft = checkDraft(input, TOOLS);
    expect(draft.pluginOnly).toContain("teams.ops");
  });

  it("a list that also names a core tool is not flagged", () => {
    const policy = resolve({ teams: { ops: { allow: ["mcp__fixture__*", "read"] } } }, { ...member, teamIds: ["ops"] });
    expect(policy.warnings.some((w) => w.code === "plugin_only_allowlist")).toBe(false);
  });
});

describe("ToolRegistry.unregister (plugin tools of a removed server)", () => {
  it("removes the tool, its schema and its meta; a new definition under the same name is served fresh", async () => {
    const { ToolRegistry } = await import("@/lib/policy");
    const { z } = await import("zod");
    const registry = new ToolRegistry({ logger: { warn: () => undefined } });
    const def = (description: string) => ({
      name: "mcp__fixture__add",
      description,
      inputSchema: z.object({}),
      group: "plugin",
      pluginId: "fixture",
      allowedModes: ["coding" as const],
      execute: () => 1,
    });
    registry.register(def("old"));
    const meta = registry.meta();
    expect(registry.getToolsSchemaFor({ allowedTools: ["mcp__fixture__add"] })[0]?.function.description).toBe("old");
    expect(registry.unregister("MCP__fixture__add")).toBe(true);
    expect(registry.unregister("mcp__fixture__add")).toBe(false);
    expect(registry.get("mcp__fixture__add")).toBeUndefined();
    expect(registry.meta()).not.toBe(meta);
    expect(registry.meta()).toEqual([]);
    registry.register(def("new"));
    expect(registry.getToolsSchemaFor({ allowedTools: ["mcp__fixture__add"] })[0]?.function.description).toBe("new");
  });
});
