import { describe, expect, it } from "vitest";
import {
  DEFAULT_POLICY_DOCUMENT,
  SUBAGENT_TOOL_DENY_ALWAYS,
  parsePolicyDocument,
  PolicyDocumentSchema,
} from "@/lib/policy";

function issuesOf(input: unknown) {
  const result = parsePolicyDocument(input);
  if (result.ok) throw new Error("expected the document to be rejected");
  return result.issues;
}

describe("PolicyDocument defaults", () => {
  it("an empty version-2 document parses to DEFAULT_POLICY_DOCUMENT; an unversioned one is read as version 1", () => {
    const parsed = parsePolicyDocument({ version: 2 });
    expect(parsed.ok && parsed.document).toEqual(DEFAULT_POLICY_DOCUMENT);
    expect(parsePolicyDocument(undefined).ok).toBe(true);
    // A version-1 document said nothing of the mode and meant allowlist: it keeps it (upgrade notes in the README).
    const old = parsePolicyDocument({});
    expect(old.ok && old.document).toEqual({
      ...DEFAULT_POLICY_DOCUMENT,
      exec: { ...DEFAULT_POLICY_DOCUMENT.exec, security: "allowlist" },
    });
  });

  it("has the documented defaults", () => {
    expect(Object.keys(DEFAULT_POLICY_DOCUMENT).sort()).toEqual(
      [
        "agents",
        "askRules",
        "exec",
        "mcpServers",
        "modeGrants",
        "modeOverrides",
        "profiles",
        "routing",
        "sandbox",
        "senders",
        "subagents",
        "system",
        "teams",
        "tools",
        "version",
      ].sort(),
    );
    expect(DEFAULT_POLICY_DOCUMENT.modeGrants).toEqual({
      roles: { member: ["chat_safe"], owner: ["chat_safe", "coding"], admin: ["chat_safe", "coding"] },
      teams: {},
      users: {},
    });
    expect(DEFAULT_POLICY_DOCUMENT.subagents).toEqual({ maxSpawnDepth: 1, tools: {} });
    // Nothing configured: the sandbox layer uses DEFAULT_SANDBOX_TOOL_POLICY (resolveSandboxToolPolicy).
    expect(DEFAULT_POLICY_DOCUMENT.sandbox.tools).toEqual({});
    expect(DEFAULT_POLICY_DOCUMENT.system.mcp).toEqual({ enabled: false, allowedServers: [] });
    expect(DEFAULT_POLICY_DOCUMENT.mcpServers).toEqual([]);
    expect(DEFAULT_POLICY_DOCUMENT.exec).toMatchObject({
      security: "sandbox",
      ask: "on-miss",
      askFallback: "deny",
      askRules: [],
    });
    expect(SUBAGENT_TOOL_DENY_ALWAYS.length).toBeGreaterThan(0);
  });

  it("the default document is frozen and defaults are not shared between parses", () => {
    expect(Object.isFrozen(DEFAULT_POLICY_DOCUMENT.modeGrants.roles.member)).toBe(true);
    const a = PolicyDocumentSchema.parse({});
    const b = PolicyDocumentSchema.parse({});
    a.askRules.push("exec");
    expect(b.askRules).toEqual([]);
  });

  it("accepts a fully populated document", () => {
    const parsed = parsePolicyDocument({
      tools: {
        profile: "coding",
        alsoAllow: ["web_search"],
        deny: ["gateway"],
        byProvider: { openai: { profile: "full" }, "openai/gpt-4o": { allow: ["read"] } },
      },
      profiles: { readonly: { allow: ["read", "group:web"] } },
      agents: {
        helper: {
          name: "Helper",
          persona: "kind",
          model: "openai/gpt-4o",
          tools: { profile: "readonly", byProvider: { openai: { deny: ["exec"] } } },
          system: { fs: { maxReadBytes: 1024 } },
        },
      },
      teams: { ops: { deny: ["exec"] } },
      senders: { u1: { allow: ["*"] } },
      sandbox: { tools: { allow: ["read"] }, sandboxed: { agents: ["helper"], teams: [], users: ["u2"] } },
      subagents: { maxSpawnDepth: 2, tools: { deny: ["cron"] } },
      modeOverrides: { memory_search: ["coding"] },
      system: { fs: { enabled: false }, mcp: { enabled: true, allowedServers: ["github"] } },
      exec: {
        security: "full",
        ask: "always",
        askFallback: "allowlist",
        allowlist: ["/usr/bin/*"],
        safeBins: ["jq"],
        timeoutMs: 5000,
        maxOutputBytes: 1000,
      },
      askRules: ["exec", "group:web"],
      modeGrants: {
        roles: { member: ["chat_safe", "coding"] },
        teams: { devs: ["coding"] },
        users: { u1: ["coding"] },
      },
    });
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.document.modeGrants.roles.owner).toEqual(["chat_safe", "coding"]);
  });
});

describe("PolicyDocument rejects with paths", () => {
  it.each([
    [{ unknownTop: 1 }, "unknownTop"],
    [{ tools: { allow: ["read"], alow: ["x"] } }, "tools.alow"],
    [{ tools: { allow: [1] } }, "tools.allow.0"],
    [{ tools: { allow: [""] } }, "tools.allow.0"],
    [{ tools: { deny: "exec" } }, "tools.deny"],
    [{ tools: { byProvider: { openai: { allow: ["x"], extra: true } } } }, "tools.byProvider.openai.extra"],
    [{ agents: { a: { tools: {} } } }, "agents.a.name"],
    [{ agents: { a: { name: "A", tools: { allow: [false] } } } }, "agents.a.tools.allow.0"],
    [{ teams: { ops: { allow: ["x"], nope: 1 } } }, "teams.ops.nope"],
    [{ senders: { u1: { deny: [null] } } }, "senders.u1.deny.0"],
    [{ sandbox: { sandboxed: { agents: "a" } } }, "sandbox.sandboxed.agents"],
    [{ subagents: { maxSpawnDepth: -1 } }, "subagents.maxSpawnDepth"],
    [{ subagents: { maxSpawnDepth: 1.5 } }, "subagents.maxSpawnDepth"],
    [{ modeOverrides: { read: ["root"] } }, "modeOverrides.read.0"],
    [{ system: { fs: { maxReadBytes: 0 } } }, "system.fs.maxReadBytes"],
    [{ system: { mcp: { enabled: "yes" } } }, "system.mcp.enabled"],
    [{ system: { gpu: { enabled: true } } }, "system.gpu"],
    [{ exec: { security: "open" } }, "exec.security"],
    [{ exec: { ask: "sometimes" } }, "exec.ask"],
    [{ askRules: "exec" }, "askRules"],
    [{ modeGrants: { roles: { guest: ["chat_safe"] } } }, "modeGrants.roles.guest"],
    [{ modeGrants: { users: { u1: ["superuser"] } } }, "modeGrants.users.u1.0"],
    [{ version: 3 }, "version"],
    [{ version: 2, exec: { askFallback: "sandbox" } }, "exec.askFallback"],
    [{ version: 1, exec: [] }, "exec"],
  ])("%j → %s", (input, path) => {
    expect(issuesOf(input).map((issue) => issue.path)).toContain(path);
  });

  it.each([
    [{ tools: { profile: "nope" } }, "tools.profile"],
    [{ tools: { byProvider: { openai: { profile: "nope" } } } }, "tools.byProvider.openai.profile"],
    [{ agents: { a: { name: "A", tools: { profile: "ghost" } } } }, "agents.a.tools.profile"],
    [{ profiles: { coding: { allow: ["read"] } } }, "profiles.coding"],
  ])("cross-references: %j → %s", (input, path) => {
    const issues = issuesOf(input);
    expect(issues.map((issue) => issue.path)).toContain(path);
    expect(issues.every((issue) => issue.message.length > 0)).toBe(true);
  });

  it("a custom profile may be referenced", () => {
    expect(parsePolicyDocument({ profiles: { ro: { allow: ["read"] } }, tools: { profile: "ro" } }).ok).toBe(true);
  });
});

// JSON.parse gives an own "__proto__" key; a record parsed from it would set the prototype instead, and the entry
// (a deny for a team or sender of that name) would vanish without a word. It is refused, with its path.
describe("PolicyDocument refuses __proto__ keys", () => {
  it.each([
    ['{"teams":{"__proto__":{"deny":["exec"]}}}', "teams.__proto__"],
    ['{"senders":{"__proto__":{"deny":["exec"]}}}', "senders.__proto__"],
    ['{"tools":{"byProvider":{"__proto__":{"deny":["exec"]}}}}', "tools.byProvider.__proto__"],
    ['{"agents":{"a":{"tools":{"byProvider":{"__proto__":{}}}}}}', "agents.a.tools.byProvider.__proto__"],
    ['{"__proto__":{"tools":{"deny":["exec"]}}}', "__proto__"],
  ])("%s", (json, path) => {
    const result = parsePolicyDocument(JSON.parse(json));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.issues).toEqual([{ path, message: expect.stringMatching(/__proto__/) }]);
    expect(({} as Record<string, unknown>).deny).toBeUndefined(); // nothing reached Object.prototype
  });

  it("a team named like a prototype property but not __proto__ keeps its deny", () => {
    const result = parsePolicyDocument(JSON.parse('{"teams":{"constructor":{"deny":["exec"]}}}'));
    expect(result.ok).toBe(true);
    if (result.ok) expect(Object.prototype.hasOwnProperty.call(result.document.teams, "constructor")).toBe(true);
  });
});
