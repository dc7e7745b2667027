// Routing rules in the policy document (issue 31): an old document without a routing section still parses (and
// routes nothing); rules are validated strictly (e-mail approvers, at most 30 days, a critical rule needs two
// different approvers, known risk cues, unique ids); the first rule whose every criterion matches wins.
import { describe, expect, it } from "vitest";
import {
  DEFAULT_POLICY_DOCUMENT,
  matchRoutingRule,
  parsePolicyDocument,
  routingPlan,
  RoutingSchema,
} from "@/lib/policy";

const rule = (extra: Record<string, unknown> = {}) => ({ id: "r", approvers: ["Owner@Example.com"], ...extra });
const issuesOf = (routing: unknown) => {
  const parsed = parsePolicyDocument({ routing });
  return parsed.ok ? [] : parsed.issues.map((i) => `${i.path}: ${i.message}`);
};

describe("policy routing section", () => {
  it("an old document without routing still parses and routes nothing", () => {
    const old = parsePolicyDocument({ version: 1, tools: { allow: ["read"] }, askRules: ["exec"] });
    expect(old.ok).toBe(true);
    if (old.ok) expect(old.document.routing).toEqual({ rules: [] });
    expect(DEFAULT_POLICY_DOCUMENT.routing.rules).toEqual([]);
  });

  it("parses a full rule and lower-cases approvers", () => {
    const parsed = parsePolicyDocument({
      routing: {
        rules: [
          rule({
            match: { teams: ["ops"], agents: ["deploy"], tools: ["exec"], risks: ["destructive"] },
            approvers: ["A@x.io", "b@x.io"],
            escalation: { afterMinutes: 30, to: ["c@x.io"] },
            expiryMinutes: 43_200,
            critical: true,
          }),
        ],
      },
    });
    expect(parsed.ok).toBe(true);
    if (parsed.ok) expect(parsed.document.routing.rules[0]!.approvers).toEqual(["a@x.io", "b@x.io"]);
  });

  it("refuses what would silently misroute", () => {
    expect(issuesOf({ rules: [rule({ expiryMinutes: 43_201 })] }).join()).toMatch(/30 days/);
    expect(issuesOf({ rules: [rule({ expiryMinutes: 0 })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule({ expiryMinutes: 1.5 })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule({ approvers: [] })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule({ approvers: ["not-an-address"] })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule({ critical: true })] }).join()).toMatch(/two different approvers/);
    expect(issuesOf({ rules: [rule({ critical: true, approvers: ["a@x.io", "A@x.io"] })] }).join()).toMatch(
      /two different approvers/,
    );
    expect(issuesOf({ rules: [rule({ match: { risks: ["destructve"] } })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule(), rule()] }).join()).toMatch(/used twice/);
    expect(issuesOf({ rules: [rule({ approver: ["a@x.io"] })] })).not.toEqual([]);
    expect(issuesOf({ rules: [rule({ match: { users: ["x"] } })] })).not.toEqual([]);
  });

  it("the first rule whose every criterion matches wins; a left-out criterion matches anything", () => {
    const routing = RoutingSchema.parse({
      rules: [
        { id: "ops-exec", match: { teams: ["ops"], tools: ["exec"] }, approvers: ["ops@x.io"] },
        { id: "deploy-agent", match: { agents: ["deploy"] }, approvers: ["lead@x.io"] },
        { id: "destructive", match: { risks: ["destructive"] }, approvers: ["sec@x.io"] },
        { id: "mcp", match: { tools: ["mcp__*"] }, approvers: ["mcp@x.io"] },
      ],
    });
    const subject = {
      teamIds: [] as string[],
      agentId: null as string | null,
      toolName: "exec",
      riskKinds: [] as string[],
    };
    expect(matchRoutingRule(routing, { ...subject, teamIds: ["ops"] })?.id).toBe("ops-exec");
    expect(matchRoutingRule(routing, { ...subject, teamIds: ["ops"], toolName: "write" })).toBeNull();
    expect(matchRoutingRule(routing, { ...subject, agentId: "deploy" })?.id).toBe("deploy-agent");
    expect(matchRoutingRule(routing, { ...subject, riskKinds: ["network", "destructive"] })?.id).toBe("destructive");
    expect(matchRoutingRule(routing, { ...subject, toolName: "mcp__github__push" })?.id).toBe("mcp");
    expect(matchRoutingRule(routing, subject)).toBeNull();
  });

  it("a plan: quorum two for critical, expiry and escalation times from the rule", () => {
    const now = new Date("2026-11-29T00:00:00Z");
    const plan = routingPlan(
      RoutingSchema.parse({
        rules: [
          rule({
            critical: true,
            approvers: ["a@x.io", "b@x.io"],
            expiryMinutes: 60,
            escalation: { afterMinutes: 5, to: ["c@x.io"] },
          }),
        ],
      }).rules[0]!,
      now,
    );
    expect(plan).toMatchObject({ rule: "r", quorum: 2, ttlMs: 3_600_000, escalateTo: ["c@x.io"] });
    expect(plan.escalateAt?.toISOString()).toBe("2026-11-29T00:05:00.000Z");
    expect(routingPlan(RoutingSchema.parse({ rules: [rule()] }).rules[0]!, now)).toMatchObject({
      quorum: 1,
      ttlMs: null,
      escalateAt: null,
    });
  });
});
