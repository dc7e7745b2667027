// Approval routing (issue 31): rules in the policy document that say who is asked for what. A rule matches a
// request by the requester's teams, the session's agent, the tool and the risk cues; the first rule that matches
// (in document order) decides who may approve, who is added after N minutes, how long the request lives, and
// whether two different owners must allow it (critical). No rule, or no rule matching: any owner decides.
import { z } from "zod";
import { compileEntries, findMatchingEntry } from "./matching";

/** The longest a routed request may wait: 30 days. */
export const ROUTING_MAX_MINUTES = 30 * 24 * 60;

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ message: "an approver is named by their e-mail address" }));
const emails = z.array(email).min(1, "name at least one approver").max(50);
const names = z.array(z.string().trim().min(1, "an entry cannot be empty").max(200)).min(1).max(100);
/** The risk cues lib/exec/risk.ts gives a request (a typo here would silently never match, so it is refused). */
export const ROUTING_RISK_KINDS = ["not-analysed", "destructive", "network", "outside-workspace", "first-use"] as const;
const minutes = z
  .number()
  .int("whole minutes")
  .min(1)
  .max(ROUTING_MAX_MINUTES, `at most ${ROUTING_MAX_MINUTES} minutes (30 days)`);

export const RoutingRuleSchema = z
  .object({
    id: z.string().trim().min(1).max(64),
    /** Every criterion given must match; one that is left out matches anything. */
    match: z
      .object({
        teams: names.optional(),
        agents: names.optional(),
        tools: names.optional(),
        risks: z.array(z.enum(ROUTING_RISK_KINDS)).min(1).optional(),
      })
      .strict()
      .prefault({}),
    approvers: emails,
    escalation: z.object({ afterMinutes: minutes, to: emails }).strict().optional(),
    expiryMinutes: minutes.optional(),
    /** Two different owners must allow; any deny wins. */
    critical: z.boolean().default(false),
  })
  .strict();

export const RoutingSchema = z
  .object({
    rules: z
      .array(RoutingRuleSchema)
      .max(100)
      .default(() => []),
  })
  .strict()
  .superRefine((routing, ctx) => {
    const seen = new Set<string>();
    routing.rules.forEach((rule, i) => {
      if (seen.has(rule.id))
        ctx.addIssue({ code: "custom", path: ["rules", i, "id"], message: `rule id "${rule.id}" is used twice` });
      seen.add(rule.id);
      const everyone = new Set([...rule.approvers, ...(rule.escalation?.to ?? [])]);
      if (rule.critical && everyone.size < 2)
        ctx.addIssue({
          code: "custom",
          path: ["rules", i, "approvers"],
          message: "a critical rule needs two different approvers (a quorum of two)",
        });
    });
  });

export type RoutingRule = z.output<typeof RoutingRuleSchema>;
export type Routing = z.output<typeof RoutingSchema>;

export type RoutingSubject = {
  teamIds: readonly string[];
  agentId: string | null;
  toolName: string;
  riskKinds: readonly string[];
};

/** The first rule whose every criterion matches the request, or null (the defaults apply). */
export function matchRoutingRule(routing: Routing, subject: RoutingSubject): RoutingRule | null {
  for (const rule of routing.rules) {
    const { teams, agents, tools, risks } = rule.match;
    if (teams && !teams.some((t) => subject.teamIds.includes(t))) continue;
    if (agents && !(subject.agentId !== null && agents.includes(subject.agentId))) continue;
    if (tools && !findMatchingEntry(compileEntries(tools), subject.toolName)) continue;
    if (risks && !risks.some((r) => subject.riskKinds.includes(r))) continue;
    return rule;
  }
  return null;
}

/** Who a request routed by `rule` is asked, once the e-mail addresses are resolved to owners. */
export function routingPlan(rule: RoutingRule, now: Date) {
  return {
    rule: rule.id,
    approvers: rule.approvers,
    escalateTo: rule.escalation?.to ?? [],
    escalateAt: rule.escalation ? new Date(now.getTime() + rule.escalation.afterMinutes * 60_000) : null,
    ttlMs: rule.expiryMinutes ? rule.expiryMinutes * 60_000 : null,
    quorum: rule.critical ? 2 : 1,
  };
}
