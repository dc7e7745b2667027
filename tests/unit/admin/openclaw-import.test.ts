import { describe, expect, it } from "vitest";
import { DEFAULT_POLICY_DOCUMENT, parsePolicyDocument } from "@/lib/policy";
import { importOpenClawConfig } from "@/lib/admin/openclaw-import";

function imported(input: unknown) {
  const result = importOpenClawConfig(input, DEFAULT_POLICY_DOCUMENT);
  const parsed = parsePolicyDocument(result.document);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return { document: parsed.document, report: result.report };
}

describe("OpenClaw tools import", () => {
  it("maps profile, allow, alsoAllow, deny, byProvider, sandbox and subagents", () => {
    const { document, report } = imported({
      tools: {
        profile: "coding",
        alsoAllow: ["web_search"],
        deny: ["gateway"],
        byProvider: { openai: { profile: "coding", allow: ["apply_patch"] }, "anthropic/claude": { deny: ["exec"] } },
        sandbox: { tools: { allow: ["group:fs"], deny: ["nodes"] } },
        subagents: { tools: { deny: ["cron"] } },
      },
    });
    expect(document.tools).toMatchObject({ profile: "coding", alsoAllow: ["web_search"], deny: ["gateway"] });
    expect(document.tools.byProvider).toEqual({ openai: { profile: "coding", allow: ["apply_patch"] }, "anthropic/claude": { deny: ["exec"] } });
    expect(document.sandbox.tools).toEqual({ allow: ["group:fs"], deny: ["nodes"] });
    expect(document.subagents.tools).toEqual({ deny: ["cron"] });
    expect(report.unmapped).toEqual([]);
  });

  it("maps per-agent tools from agents.list and from agents keyed by id", () => {
    const { document } = imported({
      agents: {
        list: [{ id: "main", name: "Main", model: { primary: "openai/gpt-4o" }, tools: { profile: "messaging", deny: ["cron"] } }],
        helper: { tools: { allow: ["group:web"] } },
      },
    });
    expect(document.agents.main).toMatchObject({ name: "Main", model: "openai/gpt-4o", tools: { profile: "messaging", deny: ["cron"] } });
    expect(document.agents.helper).toMatchObject({ name: "helper", tools: { allow: ["group:web"] } });
  });

  it("maps channel group policies to teams and reports what has no counterpart", () => {
    const { document, report } = imported({
      tools: { deny: ["exec"], elevated: { enabled: true }, sandbox: { mode: "all", tools: { deny: ["nodes"] } } },
      agents: { defaults: { model: "x" }, list: [{ name: "no id" }] },
      channels: { telegram: { groups: { "123": { tools: { deny: ["exec"] } } } } },
      gateway: { port: 1 },
    });
    expect(document.teams["telegram:123"]).toEqual({ deny: ["exec"] });
    expect(report.unmapped.map((n) => n.path).sort()).toEqual(
      ["agents.defaults", "agents.list.0", "gateway", "tools.elevated", "tools.sandbox.mode"].sort(),
    );
  });

  it("accepts a bare tools section and keeps the rest of the base document", () => {
    const base = parsePolicyDocument({ askRules: ["write"] });
    if (!base.ok) throw new Error("base");
    const result = importOpenClawConfig({ allow: ["read"], deny: ["bash"] }, base.document);
    expect(result.document).toMatchObject({ askRules: ["write"], tools: { allow: ["read"], deny: ["bash"] } });
  });

  it("reports a malformed list instead of importing it", () => {
    const { report } = imported({ tools: { deny: "exec" } });
    expect(report.unmapped).toEqual([{ path: "tools.deny", message: "expected a list of tool names" }]);
  });
});
