// Cases from openclaw/openclaw src/agents/agent-tools.policy.test.ts and its predecessor pi-tools.policy.test.ts:
// the shared matcher, the subagent layer by depth, provider keys. OpenClaw's maxSpawnDepth / tools.subagents.tools
// are our subagents.maxSpawnDepth / subagents.tools; its depth is our context.subagentDepth.
import { describe, expect, it } from "vitest";
import {
  filterToolsByPolicy,
  isToolAllowedByPolicyName,
  type PolicyDocumentInput,
  type ToolPolicy,
} from "@/lib/policy";
import { allows, policyFor } from "./helpers";

const stub = (name: string) => ({ name });

describe("agent-tools.policy.test.ts: agent-tools.policy", () => {
  // The coding profile names no plugin tool; alsoAllow beside it (globally or on the agent) adds the plugin group
  // to that scope's allow list instead of replacing the profile.
  it.each([
    {
      name: "global",
      input: { tools: { profile: "coding", alsoAllow: ["group:plugins"] } } satisfies PolicyDocumentInput,
    },
    {
      name: "agent",
      input: {
        agents: { main: { name: "Main", tools: { profile: "coding", alsoAllow: ["group:plugins"] } } },
      } satisfies PolicyDocumentInput,
    },
  ])("merges $name profile alsoAllow in configured policy resolution", ({ input }) => {
    const policy = policyFor(input, { agentId: "main" });
    expect(policy.check("lobster").allowed).toBe(true);
    expect(policy.check("workflow_tool").allowed).toBe(true);
    expect(policy.check("read").allowed).toBe(true);
    expect(policy.check("gateway").allowed).toBe(false); // the coding profile still applies
    // Without alsoAllow the same profile leaves the plugin tools out: the case above is not vacuous.
    expect(allows({ tools: { profile: "coding" } }, { agentId: "main" }, "lobster")).toBe(false);
  });

  it("L22 merges agent profile alsoAllow: ours cannot widen past a global profile (every layer only removes)", () => {
    // OpenClaw lets the agent's profile replace the global one; here the global profile is its own layer.
    const input: PolicyDocumentInput = {
      tools: { profile: "coding" },
      agents: { main: { name: "Main", tools: { profile: "coding", alsoAllow: ["group:plugins"] } } },
    };
    const decision = policyFor(input, { agentId: "main" }).check("lobster");
    expect(decision).toMatchObject({ allowed: false, layer: "profile" });
  });

  it("treats * in allow as allow-all", () => {
    expect(filterToolsByPolicy([stub("read"), stub("exec")], { allow: ["*"] }).map((t) => t.name)).toEqual([
      "read",
      "exec",
    ]);
  });

  it("treats * in deny as deny-all", () => {
    expect(filterToolsByPolicy([stub("read"), stub("exec")], { deny: ["*"] })).toStrictEqual([]);
  });

  it("supports wildcard allow/deny patterns", () => {
    expect(isToolAllowedByPolicyName("web_fetch", { allow: ["web_*"] })).toBe(true);
    expect(isToolAllowedByPolicyName("web_search", { deny: ["web_*"] })).toBe(false);
  });

  it("L19 keeps apply_patch when write is allowlisted", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { allow: ["write"] })).toBe(true);
  });

  it("keeps apply_patch when write is denylisted: ours removes it (see README, apply_patch pairing)", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { deny: ["write"] })).toBe(false);
  });

  it("L18 pi-tools.policy: keeps apply_patch when exec is allowlisted: ours does not (exec approvals would be bypassed)", () => {
    expect(isToolAllowedByPolicyName("apply_patch", { allow: ["exec"] })).toBe(false);
  });
});

const max = (maxSpawnDepth: number, tools: ToolPolicy = {}): PolicyDocumentInput => ({
  subagents: { maxSpawnDepth, tools },
});
const sub = (input: PolicyDocumentInput, depth: number, name: string) => allows(input, { subagentDepth: depth }, name);

describe("L5 agent-tools.policy.test.ts: resolveSubagentToolPolicy depth awareness", () => {
  const baseCfg = max(2);
  const deepCfg = max(3);
  const leafCfg = max(1);

  it("applies subagent tools.alsoAllow to re-enable default-denied tools: not for the hard-deny set", () => {
    const cfg = max(2, { alsoAllow: ["sessions_send"] });
    expect(sub(cfg, 1, "sessions_send")).toBe(false);
    expect(sub(cfg, 1, "cron")).toBe(false);
  });

  it("applies subagent tools.allow to re-enable default-denied tools: not for the hard-deny set", () => {
    const cfg = max(2, { allow: ["sessions_send", "read"] });
    expect(sub(cfg, 1, "sessions_send")).toBe(false);
    expect(sub(cfg, 1, "read")).toBe(true);
    expect(policyFor(cfg, { subagentDepth: 1 }).check("sessions_send").source).toBe("SUBAGENT_TOOL_DENY_ALWAYS");
  });

  it("group:sessions in subagents.tools.allow exempts neither sessions_send nor session_status", () => {
    const cfg = max(2, { allow: ["group:sessions"] });
    expect(sub(cfg, 1, "sessions_send")).toBe(false);
    expect(sub(cfg, 1, "session_status")).toBe(false);
    expect(sub(cfg, 1, "sessions_spawn")).toBe(true);
  });

  it("merges subagent tools.alsoAllow into tools.allow when both are set", () => {
    const cfg = max(2, { allow: ["sessions_spawn"], alsoAllow: ["sessions_list"] });
    expect(sub(cfg, 1, "sessions_spawn")).toBe(true);
    expect(sub(cfg, 1, "sessions_list")).toBe(true);
    expect(sub(cfg, 1, "read")).toBe(false);
  });

  it("keeps configured deny precedence over allow and alsoAllow", () => {
    expect(
      sub(
        max(2, { allow: ["sessions_list"], alsoAllow: ["sessions_list"], deny: ["sessions_list"] }),
        1,
        "sessions_list",
      ),
    ).toBe(false);
  });

  it("L13 applies configured deny to memory tools even though they are allowed by default", () => {
    const cfg = max(2, { deny: ["memory_search", "memory_get"] });
    expect(sub(cfg, 1, "memory_search")).toBe(false);
    expect(sub(cfg, 1, "memory_get")).toBe(false);
    expect(sub(baseCfg, 1, "memory_search")).toBe(true);
  });

  it("pi-tools.policy: treats subagent tools.deny as an explicit override list: ours adds to the hard denies", () => {
    const cfg = max(2, { deny: ["gateway"] });
    expect(sub(cfg, 1, "gateway")).toBe(false);
    expect(sub(cfg, 1, "cron")).toBe(false);
    expect(sub(cfg, 1, "sessions_send")).toBe(false);
  });

  it("does not create a restrictive allowlist when only alsoAllow is configured", () => {
    const cfg = max(2, { alsoAllow: ["sessions_send"] });
    expect(sub(cfg, 1, "subagents")).toBe(true);
    expect(sub(cfg, 1, "read")).toBe(true);
  });

  it.each(["sessions_spawn", "subagents", "sessions_list", "sessions_history"])(
    "depth-1 orchestrator (maxSpawnDepth=2) allows %s",
    (name) => {
      expect(sub(baseCfg, 1, name)).toBe(true);
    },
  );

  it("L13 depth-1 orchestrator still denies gateway and cron (and message) but allows memory tools", () => {
    for (const name of ["gateway", "cron", "message", "sessions_send", "session_status", "agents_list"])
      expect(sub(baseCfg, 1, name)).toBe(false);
    expect(sub(baseCfg, 1, "memory_search")).toBe(true);
    expect(sub(baseCfg, 1, "memory_get")).toBe(true);
  });

  it("L12 the hard denies hold whatever the admin allows, at every depth", () => {
    const wide = max(5, {
      allow: ["*"],
      alsoAllow: ["gateway", "cron", "message", "sessions_send", "session_status", "agents_list"],
    });
    for (const depth of [1, 2, 4])
      for (const name of ["gateway", "cron", "message", "sessions_send", "session_status", "agents_list"])
        expect(sub(wide, depth, name)).toBe(false);
    expect(sub(wide, 1, "read")).toBe(true);
  });

  it("depth-2 leaf denies sessions_spawn", () => {
    expect(sub(baseCfg, 2, "sessions_spawn")).toBe(false);
  });

  it("depth-2 orchestrator (maxSpawnDepth=3) allows sessions_spawn", () => {
    expect(sub(deepCfg, 2, "sessions_spawn")).toBe(true);
  });

  it("depth-3 leaf (maxSpawnDepth=3) denies sessions_spawn", () => {
    expect(sub(deepCfg, 3, "sessions_spawn")).toBe(false);
  });

  it("depth-2 leaf denies subagents", () => {
    expect(sub(baseCfg, 2, "subagents")).toBe(false);
  });

  it("a leaf's spawning tools cannot be re-allowed by subagents.tools", () => {
    expect(sub(max(2, { allow: ["sessions_spawn", "subagents"] }), 2, "sessions_spawn")).toBe(false);
    expect(policyFor(max(2), { subagentDepth: 2 }).check("sessions_spawn").source).toBe("subagents.maxSpawnDepth");
  });

  it("depth-2 leaf denies sessions_list and sessions_history", () => {
    expect(sub(baseCfg, 2, "sessions_list")).toBe(false);
    expect(sub(baseCfg, 2, "sessions_history")).toBe(false);
  });

  it("depth-1 leaf (maxSpawnDepth=1) denies sessions_spawn and sessions_list", () => {
    expect(sub(leafCfg, 1, "sessions_spawn")).toBe(false);
    expect(sub(leafCfg, 1, "sessions_list")).toBe(false);
  });

  it("defaults to leaf behavior when no depth is provided: ours has no subagent layer at depth 0 (a top-level run)", () => {
    expect(sub(leafCfg, 0, "sessions_spawn")).toBe(true);
    expect(sub(leafCfg, 0, "cron")).toBe(true);
    expect(
      policyFor(leafCfg)
        .check("read")
        .chain.find((entry) => entry.layer === "subagent")?.outcome,
    ).toBe("skipped");
  });

  it("our default maxSpawnDepth (1) makes every subagent a leaf", () => {
    expect(sub({}, 1, "sessions_spawn")).toBe(false);
    expect(sub({}, 1, "read")).toBe(true);
  });
});

describe("agent-tools.policy.test.ts: resolveEffectiveToolPolicy", () => {
  const byProvider = {
    "anthropic/claude-sonnet": { deny: ["exec"] },
    "openrouter/anthropic/claude-sonnet": { deny: ["read"] },
  };

  it("L21 keeps slash-containing modelId scoped to the selected provider", () => {
    const policy = policyFor({ tools: { byProvider } }, { provider: "openrouter", model: "anthropic/claude-sonnet" });
    expect(policy.check("read")).toMatchObject({
      allowed: false,
      layer: "global_provider",
      source: "tools.byProvider.openrouter/anthropic/claude-sonnet",
    });
    expect(policy.check("exec").allowed).toBe(true);
  });

  it("does not let slash-containing modelId select another provider policy", () => {
    const policy = policyFor(
      { tools: { byProvider: { "anthropic/claude-sonnet": { deny: ["exec"] } } } },
      { provider: "openrouter", model: "anthropic/claude-sonnet" },
    );
    expect(policy.check("exec").allowed).toBe(true);
  });

  it("does not implicitly re-expose exec when exec settings are configured (#47487)", () => {
    const policy = policyFor({ tools: { profile: "messaging" }, exec: { security: "full" } });
    expect(policy.check("exec").allowed).toBe(false);
    expect(policy.check("process").allowed).toBe(false);
  });

  it("explicit alsoAllow works without implicit widening (#47487)", () => {
    const policy = policyFor({
      tools: { profile: "messaging", alsoAllow: ["web_search"] },
      exec: { security: "full" },
    });
    expect(policy.check("web_search").allowed).toBe(true);
    expect(policy.check("exec").allowed).toBe(false);
  });

  it("explicit alsoAllow with exec still grants exec under messaging profile", () => {
    const policy = policyFor({ tools: { profile: "messaging", alsoAllow: ["exec", "process"] } });
    expect(policy.check("exec").allowed).toBe(true);
    expect(policy.check("process").allowed).toBe(true);
  });

  it("global exec settings do not widen an agent's messaging profile (#47487)", () => {
    const policy = policyFor(
      {
        exec: { security: "allowlist" },
        agents: { messenger: { name: "M", tools: { profile: "messaging", alsoAllow: ["image"] } } },
      },
      { agentId: "messenger" },
    );
    expect(policy.check("image").allowed).toBe(true);
    expect(policy.check("exec").allowed).toBe(false);
  });
});
