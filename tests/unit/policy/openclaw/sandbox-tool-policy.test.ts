// Cases from openclaw/openclaw src/agents/sandbox/tool-policy.test.ts: the default sandbox policy and how an admin's
// allow / alsoAllow / deny combine with it. OpenClaw's tools.sandbox.tools is our sandbox.tools.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_SANDBOX_TOOL_POLICY,
  isToolAllowedByPolicyName,
  resolveSandboxToolPolicy,
  type PolicyDocumentInput,
} from "@/lib/policy";
import { ALL_TOOLS, allows, policyFor } from "./helpers";

const sandboxed = (input: PolicyDocumentInput, name: string) => allows(input, { sandboxed: true }, name);

describe("L24 sandbox/tool-policy.test.ts: sandbox/tool-policy", () => {
  it("includes the message tool in the default sandbox allowlist", () => {
    const resolved = resolveSandboxToolPolicy();
    expect(resolved.allow).toContain("message");
    expect(isToolAllowedByPolicyName("message", resolved)).toBe(true);
    expect(sandboxed({}, "message")).toBe(true);
  });

  it("the default is the reference's: files, runtime, image and session tools in; browser, canvas, nodes, cron, gateway out", () => {
    for (const name of [
      "read",
      "write",
      "edit",
      "apply_patch",
      "exec",
      "process",
      "image",
      "sessions_list",
      "sessions_history",
      "sessions_send",
      "sessions_spawn",
      "subagents",
      "session_status",
    ]) {
      expect(sandboxed({}, name)).toBe(true);
    }
    for (const name of ["browser", "canvas", "nodes", "cron", "gateway", "web_fetch", "lobster"])
      expect(sandboxed({}, name)).toBe(false);
    expect(DEFAULT_SANDBOX_TOOL_POLICY.deny).toEqual(["browser", "canvas", "nodes", "cron", "gateway"]);
  });

  it("merges sandbox alsoAllow into the default sandbox allowlist", () => {
    const resolved = resolveSandboxToolPolicy({ alsoAllow: ["message", "web_fetch"] });
    expect(resolved.allow).toEqual(expect.arrayContaining(["message", "web_fetch", "group:fs"]));
    expect(sandboxed({ sandbox: { tools: { alsoAllow: ["web_fetch"] } } }, "web_fetch")).toBe(true);
  });

  it("alsoAllow alone keeps the layer on: gateway, nodes and browser stay denied, other tools stay out", () => {
    const input = { sandbox: { tools: { alsoAllow: ["web_fetch"] } } };
    for (const name of ["gateway", "nodes", "browser", "web_search", "lobster"])
      expect(sandboxed(input, name)).toBe(false);
    expect(sandboxed(input, "read")).toBe(true);
  });

  it("lets explicit sandbox allow remove entries from the default sandbox denylist", () => {
    const resolved = resolveSandboxToolPolicy({ allow: ["browser"] });
    expect(resolved.allow).toContain("browser");
    expect(resolved.deny).not.toContain("browser");
    expect(resolved.deny).toContain("gateway");
    expect(sandboxed({ sandbox: { tools: { allow: ["browser"] } } }, "browser")).toBe(true);
  });

  it("a wildcard allow lifts the default denies it matches", () => {
    expect(resolveSandboxToolPolicy({ alsoAllow: ["c*"] }).deny).toEqual(["browser", "nodes", "gateway"]);
  });

  it("preserves allow-all semantics for allow: [] plus alsoAllow", () => {
    const resolved = resolveSandboxToolPolicy({ allow: [], alsoAllow: ["browser"] });
    expect(resolved.allow).toStrictEqual([]);
    expect(resolved.deny).not.toContain("browser");
    expect(isToolAllowedByPolicyName("read", resolved)).toBe(true);
    expect(isToolAllowedByPolicyName("browser", resolved)).toBe(true);
    expect(isToolAllowedByPolicyName("gateway", resolved)).toBe(false);
  });

  it("keeps canonical sandbox config and the effective policy aligned with the resolver", () => {
    const tools = { allow: ["browser", "read"], alsoAllow: ["message"] };
    const resolved = resolveSandboxToolPolicy(tools);
    const policy = policyFor({ sandbox: { tools } }, { sandboxed: true });
    for (const { name } of ALL_TOOLS) {
      const sandboxChain = policy.check(name).chain.find((entry) => entry.layer === "sandbox");
      expect(sandboxChain?.outcome === "kept").toBe(isToolAllowedByPolicyName(name, resolved));
    }
  });

  it("keeps explicit sandbox deny precedence over allow and alsoAllow", () => {
    const tools = { allow: ["browser"], alsoAllow: ["message"], deny: ["browser", "message"] };
    const resolved = resolveSandboxToolPolicy(tools);
    expect(resolved.deny).toEqual(expect.arrayContaining(["browser", "message"]));
    expect(sandboxed({ sandbox: { tools } }, "browser")).toBe(false);
    expect(sandboxed({ sandbox: { tools } }, "message")).toBe(false);
  });

  it("a configured deny adds to the default denies instead of replacing them (adding a deny never loosens)", () => {
    const input = { sandbox: { tools: { deny: ["exec"] } } };
    expect(sandboxed(input, "exec")).toBe(false);
    expect(sandboxed(input, "gateway")).toBe(false);
  });

  it("uses the effective sandbox policy when explaining a blocked tool", () => {
    const decision = policyFor({ sandbox: { tools: { alsoAllow: ["message"] } } }, { sandboxed: true }).check(
      "browser",
    );
    expect(decision).toMatchObject({
      allowed: false,
      layer: "sandbox",
      source: "sandbox.tools",
      rule: "deny: browser",
    });
    expect(decision.reason).toContain("sandbox");
    expect(
      policyFor({ sandbox: { tools: { alsoAllow: ["message"] } } }, { sandboxed: true }).check("message").allowed,
    ).toBe(true);
  });

  it("keeps blocked-tool guidance glob-aware", () => {
    const decision = policyFor({ sandbox: { tools: { deny: ["WEB_*"] } } }, { sandboxed: true }).check("web_fetch");
    expect(decision).toMatchObject({ allowed: false, layer: "sandbox", rule: "deny: web_*" });
  });

  it("the sandbox layer only applies to sandboxed runs", () => {
    expect(allows({}, { sandboxed: false }, "browser")).toBe(true);
    expect(
      allows(
        { sandbox: { sandboxed: { agents: ["tavern"] } }, agents: { tavern: { name: "Tavern" } } },
        { agentId: "tavern" },
        "browser",
      ),
    ).toBe(false);
  });
});
