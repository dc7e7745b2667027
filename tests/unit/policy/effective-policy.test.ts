// A row id at the start of a test name (a letter and a number) names a row of docs/requirements.md.
import { describe, expect, it } from "vitest";
import {
  compilePolicy,
  POLICY_LAYERS,
  resolveEffectiveToolPolicy,
  type LayerId,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentInput,
} from "@/lib/policy";
import { ctx, doc, openDoc, TOOLS } from "./fixtures";

const resolve = (document: PolicyDocument, context: Partial<PolicyContext> = {}) =>
  resolveEffectiveToolPolicy(ctx(context), { document, tools: TOOLS });

type Expect = { layer: LayerId; rule: string | RegExp; source?: string; errorCode: string };
type Row = [string, PolicyDocumentInput, Partial<PolicyContext>, string, Expect];

const rows: Row[] = [
  [
    "mode: undeclared in chat_safe",
    {},
    { mode: "chat_safe" },
    "read",
    { layer: "mode", rule: "allowedModes: [coding]", errorCode: "MODE_DENIED" },
  ],
  [
    "mode: document override tightens",
    { modeOverrides: { memory_search: ["coding"] } },
    { mode: "chat_safe" },
    "memory_search",
    { layer: "mode", rule: "modeOverrides.memory_search: [coding]", errorCode: "MODE_DENIED" },
  ],
  [
    "owner_only: non-owner",
    {},
    { senderIsOwner: false },
    "cron",
    { layer: "owner_only", rule: "ownerOnly: true", errorCode: "POLICY_DENIED" },
  ],
  [
    "profile: minimal",
    { tools: { profile: "minimal" } },
    {},
    "read",
    {
      layer: "profile",
      rule: /^not in allow: session_status/,
      source: "tools.profile (minimal)",
      errorCode: "POLICY_DENIED",
    },
  ],
  [
    "profile: custom with deny",
    { profiles: { nofs: { deny: ["group:fs"] } }, tools: { profile: "nofs" } },
    {},
    "write",
    { layer: "profile", rule: "deny: group:fs", source: "tools.profile (nofs)", errorCode: "POLICY_DENIED" },
  ],
  [
    "provider_profile",
    { tools: { byProvider: { mock: { profile: "messaging" } } } },
    {},
    "read",
    {
      layer: "provider_profile",
      rule: /^not in allow: group:messaging/,
      source: "tools.byProvider.mock.profile (messaging)",
      errorCode: "POLICY_DENIED",
    },
  ],
  [
    "global: deny group",
    { tools: { deny: ["group:fs"] } },
    {},
    "edit",
    { layer: "global", rule: "deny: group:fs", source: "tools", errorCode: "POLICY_DENIED" },
  ],
  [
    "global: allow list",
    { tools: { allow: ["current_time"] } },
    {},
    "exec",
    { layer: "global", rule: "not in allow: current_time", source: "tools", errorCode: "POLICY_DENIED" },
  ],
  [
    "global_provider: provider key",
    { tools: { byProvider: { mock: { deny: ["exec"] } } } },
    {},
    "exec",
    { layer: "global_provider", rule: "deny: exec", source: "tools.byProvider.mock", errorCode: "POLICY_DENIED" },
  ],
  [
    "global_provider: provider/model key wins",
    { tools: { byProvider: { "mock/m1": { deny: ["read"] }, mock: { deny: ["write"] } } } },
    { model: "M1" },
    "read",
    { layer: "global_provider", rule: "deny: read", source: "tools.byProvider.mock/m1", errorCode: "POLICY_DENIED" },
  ],
  [
    "global_provider: apply_patch off for other providers",
    {},
    { provider: "anthropic" },
    "apply_patch",
    { layer: "global_provider", rule: "exec.applyPatchProviders: [openai, mock]", errorCode: "POLICY_DENIED" },
  ],
  [
    "agent: deny wildcard",
    { agents: { a1: { name: "A1", tools: { deny: ["web_*"] } } } },
    { agentId: "a1" },
    "web_fetch",
    { layer: "agent", rule: "deny: web_*", source: "agents.a1.tools", errorCode: "POLICY_DENIED" },
  ],
  [
    "agent: profile",
    { agents: { a1: { name: "A1", tools: { profile: "minimal" } } } },
    { agentId: "a1" },
    "read",
    { layer: "agent", rule: /^not in allow/, source: "agents.a1.tools.profile (minimal)", errorCode: "POLICY_DENIED" },
  ],
  [
    "agent_provider",
    { agents: { a1: { name: "A1", tools: { byProvider: { mock: { deny: ["memory_get"] } } } } } },
    { agentId: "a1" },
    "memory_get",
    {
      layer: "agent_provider",
      rule: "deny: memory_get",
      source: "agents.a1.tools.byProvider.mock",
      errorCode: "POLICY_DENIED",
    },
  ],
  [
    "group: team",
    { teams: { ops: { deny: ["bash"] } } },
    { teamIds: ["ops"] },
    "exec",
    { layer: "group", rule: "deny: exec", source: "teams.ops", errorCode: "POLICY_DENIED" },
  ],
  [
    "group: sender",
    { senders: { u1: { allow: ["current_time"] } } },
    { senderId: "u1" },
    "read",
    { layer: "group", rule: "not in allow: current_time", source: "senders.u1", errorCode: "POLICY_DENIED" },
  ],
  [
    "sandbox: context flag, default policy",
    {},
    { sandboxed: true },
    "web_search",
    {
      layer: "sandbox",
      rule: "not in allow: group:fs, group:runtime, image, group:sessions, +3 more",
      source: "sandbox.tools (default)",
      errorCode: "POLICY_DENIED",
    },
  ],
  [
    "sandbox: listed user",
    { sandbox: { sandboxed: { users: ["u9"] } } },
    { senderId: "u9" },
    "web_search",
    { layer: "sandbox", rule: /^not in allow/, errorCode: "POLICY_DENIED" },
  ],
  [
    "sandbox: listed team",
    { sandbox: { tools: { deny: ["read"] }, sandboxed: { teams: ["ops"] } } },
    { teamIds: ["ops"] },
    "read",
    { layer: "sandbox", rule: "deny: read", errorCode: "POLICY_DENIED" },
  ],
  [
    "subagent: hard deny",
    {},
    { subagentDepth: 1 },
    "cron",
    { layer: "subagent", rule: "deny: cron", source: "SUBAGENT_TOOL_DENY_ALWAYS", errorCode: "POLICY_DENIED" },
  ],
  [
    "subagent: configured deny",
    { subagents: { tools: { deny: ["web_fetch"] } } },
    { subagentDepth: 1 },
    "web_fetch",
    { layer: "subagent", rule: "deny: web_fetch", source: "subagents.tools", errorCode: "POLICY_DENIED" },
  ],
  [
    "subagent: depth limit strips spawning",
    { subagents: { maxSpawnDepth: 2, tools: { alsoAllow: ["subagents"] } } },
    { subagentDepth: 2 },
    "subagents",
    { layer: "subagent", rule: "maxSpawnDepth: 2", source: "subagents.maxSpawnDepth", errorCode: "POLICY_DENIED" },
  ],
  [
    "system: fs disabled",
    { system: { fs: { enabled: false } } },
    {},
    "read",
    { layer: "system", rule: "fs.enabled: false", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
  [
    "system: exec disabled",
    { system: { exec: { enabled: false } } },
    {},
    "process",
    { layer: "system", rule: "exec.enabled: false", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
  [
    "system: web disabled",
    { system: { web: { enabled: false } } },
    {},
    "web_search",
    { layer: "system", rule: "web.enabled: false", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
  [
    "system: mcp disabled",
    { system: { mcp: { enabled: false } } },
    {},
    "gh_issue",
    { layer: "system", rule: "mcp.enabled: false", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
  [
    "system: mcp server not allowed",
    { system: { mcp: { allowedServers: ["github"] } } },
    {},
    "jira_ticket",
    { layer: "system", rule: "mcp.allowedServers excludes jira", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
  [
    "system: agent tightens",
    { agents: { a1: { name: "A1", system: { web: { enabled: false } } } } },
    { agentId: "a1" },
    "web_fetch",
    { layer: "system", rule: "web.enabled: false", errorCode: "TOOL_NOT_AVAILABLE" },
  ],
];

describe("L3/L4/Y3 resolveEffectiveToolPolicy: every layer removes with provenance", () => {
  it.each(rows)("%s", (_label, input, context, name, expected) => {
    const baseline = resolve(openDoc(), context).check(name);
    expect(baseline.allowed || baseline.layer === expected.layer).toBe(true);
    const decision = resolve(openDoc(input), context).check(name);
    expect(decision.allowed).toBe(false);
    expect(decision.effect).toBe("deny");
    expect(decision.layer).toBe(expected.layer);
    expect(decision.rule).toMatch(
      expected.rule instanceof RegExp
        ? expected.rule
        : new RegExp(`^${expected.rule.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")}$`),
    );
    if (expected.source) expect(decision.source).toBe(expected.source);
    expect(decision.errorCode).toBe(expected.errorCode);
    expect(decision.reason.length).toBeGreaterThan(10);
    const chainEntry = decision.chain[POLICY_LAYERS.indexOf(expected.layer)];
    expect(chainEntry).toMatchObject({ layer: expected.layer, outcome: "removed", rule: decision.rule });
    expect(
      decision.chain.slice(0, POLICY_LAYERS.indexOf(expected.layer)).every((entry) => entry.outcome !== "removed"),
    ).toBe(true);
  });
});

describe("resolveEffectiveToolPolicy: behaviour", () => {
  it("L1/P3 the chain lists every layer in order, skipping the ones that do not apply", () => {
    const decision = resolve(openDoc()).check("read");
    expect(decision.chain.map((entry) => entry.layer)).toEqual([...POLICY_LAYERS]);
    expect(decision.chain.find((entry) => entry.layer === "sandbox")?.outcome).toBe("skipped");
    expect(decision.chain.find((entry) => entry.layer === "mode")?.outcome).toBe("kept");
    expect(decision).toMatchObject({ allowed: true, effect: "allow", layer: "allowed" });
  });

  it("L2 a later layer cannot re-add what an earlier one removed", () => {
    const policy = resolve(
      openDoc({ tools: { deny: ["exec"] }, agents: { a1: { name: "A1", tools: { allow: ["exec", "read"] } } } }),
      { agentId: "a1" },
    );
    expect(policy.check("exec")).toMatchObject({ allowed: false, layer: "global" });
    expect(policy.check("exec").chain.find((e) => e.layer === "agent")?.outcome).toBe("kept");
  });

  it("L20 alsoAllow extends a profile", () => {
    const policy = resolve(openDoc({ tools: { profile: "minimal", alsoAllow: ["web_search"] } }));
    expect(policy.check("web_search").allowed).toBe(true);
    expect(policy.check("read").allowed).toBe(false);
  });

  it("explicit subagent allows lift the default deny list only inside the subagent layer", () => {
    const policy = resolve(openDoc({ subagents: { tools: { allow: ["memory_search", "current_time"] } } }), {
      subagentDepth: 1,
    });
    expect(policy.check("memory_search").allowed).toBe(true);
    expect(policy.check("memory_get")).toMatchObject({ allowed: false, layer: "subagent" });
    expect(resolve(openDoc(), { subagentDepth: 0 }).check("memory_search").allowed).toBe(true);
  });

  it("spawning is kept below the depth limit", () => {
    const document = openDoc({ subagents: { maxSpawnDepth: 2, tools: { alsoAllow: ["subagents"] } } });
    expect(resolve(document, { subagentDepth: 1 }).check("subagents").allowed).toBe(true);
  });

  it("Y15 ask_user stays available when fs is disabled", () => {
    const policy = resolve(openDoc({ system: { fs: { enabled: false } } }), { mode: "chat_safe" });
    expect(policy.check("ask_user").allowed).toBe(true);
    expect(policy.allowedTools).not.toContain("read");
  });

  it("check: unknown names are TOOL_NOT_FOUND, aliases and case are normalized", () => {
    const policy = resolve(openDoc());
    expect(policy.check("write_file")).toMatchObject({
      name: "write_file",
      allowed: false,
      effect: "deny",
      layer: "not_found",
      errorCode: "TOOL_NOT_FOUND",
    });
    expect(policy.check("bash")).toBe(policy.check("exec"));
    expect(policy.check(" READ ")).toBe(policy.tools.read);
  });

  it("allowedTools keeps registration order and equals the allowed decisions", () => {
    const policy = resolve(openDoc({ tools: { deny: ["memory_get", "write"] } }));
    // Denying write also removes apply_patch (README: apply_patch pairing).
    const expected = TOOLS.map((t) => t.name).filter(
      (name) => name !== "memory_get" && name !== "write" && name !== "apply_patch",
    );
    expect(policy.allowedTools).toEqual(expected);
    expect(
      Object.values(policy.tools)
        .filter((d) => d.allowed)
        .map((d) => d.name),
    ).toEqual(expected);
  });

  it("askRules make an allowed tool 'ask'; a denied tool stays 'deny'", () => {
    const policy = resolve(openDoc({ askRules: ["exec", "group:web"], tools: { deny: ["web_fetch"] } }));
    expect(policy.check("exec")).toMatchObject({ allowed: true, effect: "ask", rule: "ask: exec", layer: "allowed" });
    expect(policy.check("web_search")).toMatchObject({ effect: "ask", rule: "ask: group:web" });
    expect(policy.check("web_fetch")).toMatchObject({ allowed: false, effect: "deny" });
    expect(policy.check("read").effect).toBe("allow");
  });

  it("a mode not granted to the sender is evaluated as chat_safe, with a warning", () => {
    const member = resolve(openDoc(), { roles: ["member"], senderIsOwner: false, mode: "coding" });
    expect(member.mode).toBe("chat_safe");
    expect(member.check("read")).toMatchObject({ allowed: false, layer: "mode", errorCode: "MODE_DENIED" });
    expect(member.warnings.map((w) => w.code)).toContain("mode_not_granted");
    const viaTeam = resolve(openDoc({ modeGrants: { teams: { devs: ["coding"] } } }), {
      roles: ["member"],
      teamIds: ["devs"],
      mode: "coding",
    });
    expect(viaTeam.mode).toBe("coding");
    expect(viaTeam.check("read").allowed).toBe(true);
    const viaUser = resolve(openDoc({ modeGrants: { users: { u7: ["coding"] } } }), {
      roles: ["member"],
      senderId: "u7",
      mode: "coding",
    });
    expect(viaUser.grantedModes).toEqual(["chat_safe", "coding"]);
  });

  it("an invalid mode is evaluated as chat_safe", () => {
    const policy = resolve(openDoc(), { mode: "root" as PolicyContext["mode"] });
    expect(policy.mode).toBe("chat_safe");
    expect(policy.warnings.map((w) => w.code)).toContain("invalid_mode");
    expect(policy.check("read").allowed).toBe(false);
  });

  it("warns about unknown entries, unknown agents, loosening overrides and plugin-only allow lists (which are kept)", () => {
    const policy = resolve(
      openDoc({
        tools: { deny: ["reed"] },
        modeOverrides: { read: ["chat_safe", "coding"] },
        teams: { ops: { allow: ["github"] } },
      }),
      { agentId: "ghost", teamIds: ["ops"], mode: "chat_safe" },
    );
    const codes = policy.warnings.map((w) => `${w.code}:${w.source ?? ""}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        "unknown_entry:tools",
        "unknown_agent:agents.ghost",
        "mode_override_loosens:modeOverrides.read",
        "plugin_only_allowlist:teams.ops",
      ]),
    );
    expect(policy.check("read")).toMatchObject({ allowed: false, layer: "mode" });
    expect(policy.check("current_time")).toMatchObject({ allowed: false, layer: "group", source: "teams.ops" });
    expect(policy.check("gh_issue").allowed).toBe(true);
  });

  it("the default document produces no warnings, also for sandboxed subagents", () => {
    expect(resolve(doc(), { sandboxed: true, subagentDepth: 1, mode: "chat_safe" }).warnings).toEqual([]);
    expect(resolve(doc(), { sandboxed: true, subagentDepth: 1 }).warnings).toEqual([]);
  });

  it("P4 a plugin-only allow list outside the flagged steps is enforced without the warning", () => {
    const policy = resolve(openDoc({ tools: { allow: ["github"] } }));
    expect(policy.warnings.map((w) => w.code)).not.toContain("plugin_only_allowlist");
    expect(policy.check("read").allowed).toBe(false);
  });

  it("L11 an unknown profile that bypassed validation removes everything (fail closed)", () => {
    const document = { ...openDoc(), tools: { profile: "ghost" } } as PolicyDocument;
    const policy = resolve(document);
    expect(policy.allowedTools).toEqual([]);
    expect(policy.check("current_time")).toMatchObject({ layer: "profile", rule: 'unknown profile "ghost"' });
    expect(policy.warnings.map((w) => w.code)).toContain("unknown_profile");
  });

  it("Y17 exposes merged limits and exec settings", () => {
    const policy = resolve(
      openDoc({
        system: { fs: { maxReadBytes: 4096 } },
        agents: { a1: { name: "A1", system: { fs: { maxReadBytes: 1000, maxWriteBytes: 9e9 } } } },
      }),
      { agentId: "a1" },
    );
    expect(policy.limits.fs).toEqual({ enabled: true, maxReadBytes: 1000, maxWriteBytes: 2 * 1024 * 1024 });
    expect(policy.exec.security).toBe("allowlist");
  });

  it("is deterministic: separately compiled equal inputs give equal results", () => {
    const input: PolicyDocumentInput = {
      tools: { profile: "coding", deny: ["process"] },
      teams: { ops: { deny: ["web_*"] } },
    };
    const context = { teamIds: ["ops"], subagentDepth: 1 };
    const a = resolve(openDoc(input), context);
    const b = resolve(openDoc(input), { ...context });
    expect(a).not.toBe(b);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    expect(a.check("exec")).toEqual(b.check("exec"));
  });

  it("caches compilations by identity and resolutions by context", () => {
    const document = openDoc();
    const compiled = compilePolicy(document, TOOLS);
    expect(compilePolicy(document, TOOLS)).toBe(compiled);
    expect(compilePolicy(document, [...TOOLS])).not.toBe(compiled);
    const first = compiled.resolve(ctx({ teamIds: ["b", "a"] }));
    expect(compiled.resolve(ctx({ teamIds: ["a", "b"] }))).toBe(first);
    expect(compiled.resolve(ctx({ mode: "chat_safe" }))).not.toBe(first);
    expect(resolveEffectiveToolPolicy(ctx({ teamIds: ["a", "b"] }), { document, tools: TOOLS })).toBe(first);
  });

  it("a cacheKey shares one compilation between equal documents read as new objects", () => {
    const key = `test-${Math.random()}`;
    const first = resolveEffectiveToolPolicy(ctx(), { document: openDoc(), tools: TOOLS, cacheKey: key });
    const second = resolveEffectiveToolPolicy(ctx(), { document: openDoc(), tools: [...TOOLS], cacheKey: key });
    expect(second).toBe(first);
    const other = resolveEffectiveToolPolicy(ctx(), { document: openDoc(), tools: TOOLS, cacheKey: `${key}-v2` });
    expect(other).not.toBe(first);
  });

  it("results are frozen so a cached result cannot be altered by one caller", () => {
    const policy = resolve(openDoc());
    expect(Object.isFrozen(policy)).toBe(true);
    expect(Object.isFrozen(policy.tools.read)).toBe(true);
    expect(Object.isFrozen(policy.allowedTools)).toBe(true);
    expect(Object.isFrozen(policy.context.roles)).toBe(true);
  });

  it("L29 with the default document a member in chat_safe gets exactly the safe built-ins", () => {
    const policy = resolve(doc(), { roles: ["member"], senderIsOwner: false, mode: "chat_safe", provider: "openai" });
    expect(policy.allowedTools).toEqual([
      "current_time",
      "ask_user",
      "memory_search",
      "memory_get",
      "web_search",
      "web_fetch",
      "sessions_list",
      "sessions_spawn",
      "subagents",
      "session_status",
    ]);
  });
});
