// The OpenClaw import against configurations written from OpenClaw's own docs (tests/fixtures/openclaw/*.json5):
// each test imports one, resolves Toolgate's effective policy for the contexts the config talks about, and
// compares the allowed tools with what OpenClaw's rules allow for the same requester (worked out by hand from
// docs/gateway/config-tools.md, docs/tools/multi-agent-sandbox-tools.md and docs/channels/groups.md). Where Toolgate
// cannot express OpenClaw's "most specific sender wins", the test pins the documented deviation: stricter, never looser.
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  ToolRegistry,
  type PolicyContext,
  type PolicyDocument,
  type ToolDefinition,
  type ToolMeta,
} from "@/lib/policy";
import { importOpenClawConfig, parseOpenClawText } from "@/lib/admin/openclaw-import";
import { CreateTeamBody } from "@/lib/admin/schemas";
import { registerBuiltinTools } from "@/lib/tools/builtin";

const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: () => undefined } });
registerBuiltinTools(registry);
// Two tools of an MCP server the admin has granted (as sync.ts would register them).
const plugin = (tool: string): ToolMeta => ({
  name: `mcp__outlook-graph__${tool}`,
  group: "plugin",
  pluginId: "outlook-graph",
  allowedModes: ["chat_safe", "coding"],
  ownerOnly: false,
});
const TOOLS: ToolMeta[] = [...registry.meta(), plugin("send_mail"), plugin("list_mail")];

const fixture = (name: string) => fs.readFileSync(path.join(__dirname, "../../fixtures/openclaw", name), "utf8");

function doc(input: unknown): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.document;
}
/** The base an admin would import into: MCP on for the server whose tools are in the catalog. */
const BASE = doc({ system: { mcp: { enabled: true, allowedServers: ["outlook-graph"] } } });

function run(name: string, base = BASE) {
  const result = importOpenClawConfig(parseOpenClawText(fixture(name)), base, TOOLS);
  return { document: doc(result.document), report: result.report };
}

/** Widest requester: an owner in coding mode on the offline provider, so only the imported layers remove tools. */
function allowed(document: PolicyDocument, extra: Partial<PolicyContext> = {}): Set<string> {
  const context: PolicyContext = {
    roles: ["member", "owner", "admin"],
    senderIsOwner: true,
    mode: "coding",
    provider: "offline",
    senderId: "someone",
    ...extra,
  };
  return new Set(resolveEffectiveToolPolicy(context, { document, tools: TOOLS }).allowedTools);
}
const minus = (set: Set<string>, ...names: string[]) => new Set([...set].filter((n) => !names.includes(n)));
const sorted = (set: Iterable<string>) => [...set].sort();
/** OpenClaw's answer restricted to the tools Toolgate has and offers this requester at all (its catalog and modes). */
const offered = (names: string[], base: Set<string>) => names.filter((n) => base.has(n)).sort();
const paths = (notes: Array<{ path: string }>) => notes.map((n) => n.path);

describe("multi-agent config (agents.entries, JSON5)", () => {
  const { document, report } = run("multi-agent.json5");
  const global = allowed(document);

  it("keeps every agent under its own id (not one agent named 'entries')", () => {
    expect(Object.keys(document.agents).sort()).toEqual(["comms", "family", "main"]);
    expect(document.agents.family?.name).toBe("Family Bot");
  });

  it("family: OpenClaw allows only read (message is outside the coding profile); so does Toolgate", () => {
    expect(sorted(allowed(document, { agentId: "family" }))).toEqual(["read"]);
  });

  it("main: the coding profile minus the global deny (browser, canvas), exec and write included", () => {
    const main = allowed(document, { agentId: "main" });
    expect(sorted(main)).toEqual(sorted(global));
    expect(main.has("exec") && main.has("write") && main.has("read")).toBe(true);
    expect(main.has("browser") || main.has("canvas")).toBe(false);
  });

  it("comms: the '*' sender deny applies to any sender, exactly as in OpenClaw", () => {
    const openclaw = ["session_status", "sessions_history", "sessions_list"];
    expect(sorted(allowed(document, { agentId: "comms", senderId: "anyone" }))).toEqual(
      offered(openclaw, allowed(BASE)),
    );
    expect(offered(openclaw, allowed(BASE)).length).toBeGreaterThanOrEqual(2);
    // OpenClaw gives ops-lead sessions_send back (its own entry wins); per-agent sender entries have no
    // counterpart, so Toolgate stays stricter and says so.
    expect(allowed(document, { agentId: "comms", senderId: "ops-lead" }).has("sessions_send")).toBe(false);
    expect(
      report.unmapped.find((n) => n.path === "agents.entries.comms.tools.toolsBySender.id:ops-lead")?.message,
    ).toMatch(/NOT imported/);
  });

  it("sandbox modes: family ('all') is sandboxed, main and comms ('off' over the default 'all') are not", () => {
    expect(document.sandbox.sandboxed.agents).toEqual(["family"]);
  });

  it("reports what has no counterpart", () => {
    expect(paths(report.unmapped)).toEqual(
      expect.arrayContaining(["bindings", "agents.entries.main.workspace", "agents.entries.family.workspace"]),
    );
  });
});

describe("legacy agents.list config with tools.exec", () => {
  const { document, report } = run("legacy-list.json5");

  it("work: read, write, apply_patch, exec (all inside the default sandbox policy); public: read only", () => {
    expect(sorted(allowed(document, { agentId: "work", sandboxed: true }))).toEqual([
      "apply_patch",
      "exec",
      "read",
      "write",
    ]);
    expect(sorted(allowed(document, { agentId: "public", sandboxed: true }))).toEqual(["read"]);
    expect(sorted(allowed(document, { agentId: "personal" }))).toEqual(sorted(allowed(BASE)));
  });

  it("names an unknown tool instead of dropping it silently", () => {
    expect(report.names).toContainEqual({
      path: "agents.list.1.tools.deny",
      message: '"discord" is not a Toolgate tool; kept as written and matches nothing',
    });
  });

  it("maps tools.exec onto the exec settings and reports the fields that have none", () => {
    expect(document.exec).toMatchObject({
      security: "allowlist",
      ask: "on-miss",
      timeoutMs: 1_800_000,
      safeBins: ["jq", "grep"],
    });
    expect(paths(report.unmapped)).toEqual(
      expect.arrayContaining([
        "tools.exec.backgroundMs",
        "tools.exec.cleanupMs",
        "tools.exec.notifyOnExit",
        "tools.exec.applyPatch.allowModels",
      ]),
    );
    expect(report.unmapped.find((n) => n.path === "agents.defaults.sandbox.mode")?.message).toMatch(/non-main/);
    expect(document.sandbox.sandboxed.agents.sort()).toEqual(["public", "work"]);
  });
});

describe("tools.exec.host onto the exec modes", () => {
  const base = doc({ version: 2 });
  const imported = (exec: unknown) => {
    const { document, report } = importOpenClawConfig({ tools: { exec } }, base, TOOLS);
    return { exec: doc(document).exec, report };
  };

  it("host sandbox is Toolgate's sandbox mode; its security and ask then speak for host execution", () => {
    expect(imported({ host: "sandbox", security: "allowlist" }).exec.security).toBe("sandbox");
    expect(imported({ host: "sandbox", security: "deny" }).exec.security).toBe("deny");
  });

  it("gateway and node hosts keep OpenClaw's security and say where host execution lives; an unknown host is reported", () => {
    const gateway = imported({ host: "gateway", security: "allowlist" });
    expect(gateway.exec.security).toBe("allowlist");
    expect(gateway.report.unmapped.find((n) => n.path === "tools.exec.host")?.message).toMatch(/exec\.host\.agents/);
    expect(imported({ host: "cloud" }).report.unmapped.find((n) => n.path === "tools.exec.host")?.message).toMatch(
      /expected one of/,
    );
  });

  it("OpenClaw has no sandbox security value: one is refused, never read as a mode", () => {
    const { exec, report } = imported({ security: "sandbox", askFallback: "sandbox" });
    expect(exec).toMatchObject({ security: "sandbox", askFallback: "deny" });
    expect(report.unmapped.map((n) => n.path)).toEqual(
      expect.arrayContaining(["tools.exec.security", "tools.exec.askFallback"]),
    );
  });
});

describe("groups, senders and MCP names", () => {
  const { document, report } = run("groups-senders.json5");
  const baseline = allowed(BASE);
  const MEDIA = ["image"];
  const STAR_SENDER = ["exec", "process", "write", "edit", "apply_patch"];

  it("any sender: global group:media deny (expanded, Toolgate has no such group) and the '*' sender deny", () => {
    expect(sorted(allowed(document, { senderId: "u1" }))).toEqual(sorted(minus(baseline, ...MEDIA, ...STAR_SENDER)));
    expect(report.names).toContainEqual(
      expect.objectContaining({ path: "tools.deny", message: expect.stringMatching(/"group:media" → image/) }),
    );
  });

  it("id: sender: its own deny (runtime, fs) — equal to OpenClaw, whose '*' does not apply to it", () => {
    expect(sorted(allowed(document, { senderId: "guest-user-id" }))).toEqual(
      sorted(minus(baseline, ...MEDIA, "exec", "process", "read", "write", "edit", "apply_patch")),
    );
  });

  it("channel: sender: OpenClaw exempts it from '*'; Toolgate keeps '*' (stricter) and reports it", () => {
    const toolgate = allowed(document, { senderId: "1234567890123" });
    const openclaw = minus(baseline, ...MEDIA);
    expect([...toolgate].every((t) => openclaw.has(t))).toBe(true);
    expect(sorted([...openclaw].filter((t) => !toolgate.has(t)))).toEqual(offered(STAR_SENDER, baseline));
    expect(report.mapped.find((n) => n.path === "tools.toolsBySender.*")?.message).toMatch(/stricter than OpenClaw/);
    expect(report.unmapped.find((n) => n.path === "tools.toolsBySender.username:@mallory")?.message).toMatch(
      /NOT imported/,
    );
  });

  it("groups become teams with their ids kept ('@', '-', '*'), accepted by the team API", () => {
    expect(Object.keys(document.teams).sort()).toEqual([
      "telegram:*",
      "telegram:-1001234567890",
      "telegram:-1009876543210",
      "whatsapp:120363424282127706@g.us",
    ]);
    for (const id of Object.keys(document.teams)) expect(CreateTeamBody.safeParse({ id, name: id }).success).toBe(true);
  });

  it("WhatsApp group: read plus the Outlook server glob; message is in group:openclaw, which it denies", () => {
    expect(sorted(allowed(document, { teamIds: ["whatsapp:120363424282127706@g.us"] }))).toEqual([
      "mcp__outlook-graph__list_mail",
      "mcp__outlook-graph__send_mail",
      "read",
    ]);
  });

  it("Telegram group: its own deny, its '*' sender deny (send_mail); a group without tools gets the '*' group default", () => {
    const group = allowed(document, { teamIds: ["telegram:-1001234567890"] });
    expect(sorted(group)).toEqual(
      sorted(minus(baseline, ...MEDIA, ...STAR_SENDER, "read", "mcp__outlook-graph__send_mail")),
    );
    expect(sorted(allowed(document, { teamIds: ["telegram:-1009876543210"] }))).toEqual(
      sorted(minus(baseline, ...MEDIA, ...STAR_SENDER)),
    );
    expect(document.teams["telegram:-1009876543210"]).toEqual({ deny: ["exec"] });
    expect(document.teams["telegram:*"]).toEqual({ deny: ["exec"] });
    expect(
      report.unmapped.find((n) => n.path === "channels.telegram.groups.-1001234567890.toolsBySender.id:123456789")
        ?.message,
    ).toMatch(/NOT imported/);
    expect(report.unmapped.find((n) => n.path === "channels.telegram")?.message).toMatch(/botToken/);
  });

  it("MCP: the server is added fail-closed, bundle-mcp lets its tools into the sandbox, server__tool names are mapped", () => {
    expect(document.mcpServers).toEqual([
      expect.objectContaining({
        id: "outlook-graph",
        allowedModes: [],
        transport: expect.objectContaining({ type: "stdio", command: "node" }),
      }),
    ]);
    expect(document.sandbox.tools.alsoAllow).toContain("group:plugins");
    const sandboxed = allowed(document, { sandboxed: true });
    expect(sandboxed.has("mcp__outlook-graph__list_mail")).toBe(true);
    expect(report.names).toContainEqual(
      expect.objectContaining({ message: '"outlook-graph__send_mail" → mcp__outlook-graph__send_mail' }),
    );
  });
});

describe("merging, bad input and a hostile config", () => {
  it("merges into the current document: deny lists unite, replaced values are reported, other sections stay", () => {
    const base = doc({
      ...BASE,
      tools: { allow: ["read"], deny: ["browser"] },
      agents: { keep: { name: "Keep" } },
      teams: { staff: { deny: ["cron"] } },
      askRules: ["write"],
    });
    const result = importOpenClawConfig(
      parseOpenClawText("{ tools: { allow: ['read', 'write'], deny: ['exec'] } }"),
      base,
      TOOLS,
    );
    const merged = doc(result.document);
    expect(merged.tools).toMatchObject({ allow: ["read", "write"], deny: ["browser", "exec"] });
    expect(merged.agents.keep?.name).toBe("Keep");
    expect(merged.teams.staff).toEqual({ deny: ["cron"] });
    expect(merged.askRules).toEqual(["write"]);
    expect(result.report.replaced).toEqual([{ path: "tools.allow", message: 'was ["read"], now ["read","write"]' }]);
  });

  it("an agent imported twice keeps the union of its denies", () => {
    const once = importOpenClawConfig(parseOpenClawText(fixture("multi-agent.json5")), BASE, TOOLS);
    const twice = importOpenClawConfig(
      { agents: { entries: { family: { tools: { deny: ["cron"] } } } } },
      doc(once.document),
      TOOLS,
    );
    expect(doc(twice.document).agents.family?.tools.deny).toEqual(expect.arrayContaining(["exec", "write", "cron"]));
    expect(doc(twice.document).agents.family?.tools.allow).toEqual(["read", "message"]);
  });

  it("JSON5 syntax errors are a 400-style validation error naming the position", () => {
    expect(() => parseOpenClawText("{ tools: { deny: ['exec' }")).toThrow(
      expect.objectContaining({ code: "VALIDATION_FAILED", message: expect.stringMatching(/not valid JSON5: .*1:/) }),
    );
  });

  it("refuses __proto__ and constructor keys without touching any prototype", () => {
    const text =
      "{ agents: { entries: { __proto__: { tools: { allow: ['exec'] } }, constructor: {} } }, tools: { toolsBySender: { __proto__: { deny: [] } } } }";
    const result = importOpenClawConfig(parseOpenClawText(text), BASE, TOOLS);
    expect(({} as Record<string, unknown>).tools).toBeUndefined();
    expect(Object.keys(doc(result.document).agents)).toEqual([]);
    expect(paths(result.report.unmapped)).toEqual(
      expect.arrayContaining(["(root).agents.entries.__proto__", "(root).agents.entries.constructor"]),
    );
  });

  it("reports malformed lists and non-object roots instead of importing them", () => {
    expect(importOpenClawConfig({ tools: { deny: "exec" } }, BASE, TOOLS).report.unmapped).toEqual([
      { path: "tools.deny", message: "expected a list of tool names" },
    ]);
    expect(importOpenClawConfig([1, 2], BASE, TOOLS).report.unmapped).toEqual([
      { path: "(root)", message: "expected an object" },
    ]);
  });
});
