import { describe, expect, it } from "vitest";
import { buildDenial, restrictToParent, resolveEffectiveToolPolicy } from "@/lib/policy";
import { ctx, doc, TOOLS } from "./fixtures";

describe("restrictToParent: a subagent never has more tools than its parent", () => {
  const child = resolveEffectiveToolPolicy(ctx({ subagentDepth: 1 }), {
    document: doc({ subagents: { tools: { allow: ["*"] } } }),
    tools: TOOLS,
  });

  it("denies what the parent lacks with layer parent, whatever the subagent layer allowed", () => {
    expect(child.check("current_time").allowed).toBe(true);
    const limited = restrictToParent(
      child,
      child.allowedTools.filter((n) => n !== "current_time"),
    );
    const decision = limited.check("current_time");
    expect(decision).toMatchObject({
      allowed: false,
      effect: "deny",
      layer: "parent",
      errorCode: "POLICY_DENIED",
      rule: "parent's allowed tools",
    });
    expect(limited.allowedTools).not.toContain("current_time");
    expect(limited.tools.current_time?.layer).toBe("parent");
    expect(buildDenial(decision, limited.mode).message).toMatch(/parent run's tool set/);
  });

  it("never widens: a tool the child's own policy denies stays denied by its own layer", () => {
    const deniedByChild = Object.values(child.tools).find((d) => !d.allowed)!;
    const limited = restrictToParent(child, [deniedByChild.name, ...child.allowedTools]);
    expect(limited.check(deniedByChild.name)).toEqual(deniedByChild);
    expect(limited.allowedTools).toEqual(child.allowedTools);
  });

  it("keeps unknown names as TOOL_NOT_FOUND and an empty parent set denies everything", () => {
    const limited = restrictToParent(child, []);
    expect(limited.allowedTools).toEqual([]);
    expect(limited.check("no_such_tool").errorCode).toBe("TOOL_NOT_FOUND");
  });
});
