"use client";
// Ask rules (tools whose every call needs an owner's approval) and approval routing (lib/policy/routing.ts: who is
// asked for what, who is added later, how long a request lives, two owners for critical requests) as forms. A
// routing rule is checked with RoutingRuleSchema and, in its place among the others, with RoutingSchema (duplicate
// ids, the quorum of a critical rule) as you type; only a valid rule is written into the draft.
import { z } from "zod";
import type { PolicyDocument } from "@/lib/policy";
import { ROUTING_RISK_KINDS, RoutingRuleSchema, RoutingSchema, type RoutingRule } from "@/lib/policy/routing";
import { box, button, help, ListField } from "./field-controls";
import { issuesOfResult, ItemInput, useItemForm } from "./item-form";
import { parseList } from "./list-input";

const RISK_LABELS: Record<(typeof ROUTING_RISK_KINDS)[number], string> = {
  "not-analysed": "the command could not be analysed",
  destructive: "deletes or overwrites",
  network: "uses the network",
  "outside-workspace": "touches files outside the workspace",
  "first-use": "a program used for the first time",
};

type RuleForm = {
  id: string;
  teams: string;
  agents: string;
  tools: string;
  risks: string[];
  approvers: string;
  escalateAfter: string;
  escalateTo: string;
  expiry: string;
  critical: boolean;
};

const toForm = (rule: RoutingRule | undefined): RuleForm => ({
  id: rule?.id ?? "",
  teams: (rule?.match.teams ?? []).join(", "),
  agents: (rule?.match.agents ?? []).join(", "),
  tools: (rule?.match.tools ?? []).join(", "),
  risks: [...(rule?.match.risks ?? [])],
  approvers: (rule?.approvers ?? []).join(", "),
  escalateAfter: rule?.escalation ? String(rule.escalation.afterMinutes) : "",
  escalateTo: (rule?.escalation?.to ?? []).join(", "),
  expiry: rule?.expiryMinutes ? String(rule.expiryMinutes) : "",
  critical: rule?.critical ?? false,
});

const number = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : text.trim() === "" ? undefined : text);

function build(f: RuleForm) {
  const list = (text: string) => (parseList(text).length > 0 ? parseList(text) : undefined);
  const match = {
    teams: list(f.teams),
    agents: list(f.agents),
    tools: list(f.tools),
    risks: f.risks.length > 0 ? f.risks : undefined,
  };
  const escalate = f.escalateAfter.trim() !== "" || f.escalateTo.trim() !== "";
  return {
    id: f.id,
    match: Object.fromEntries(Object.entries(match).filter(([, v]) => v !== undefined)),
    approvers: parseList(f.approvers),
    ...(escalate ? { escalation: { afterMinutes: number(f.escalateAfter), to: parseList(f.escalateTo) } } : {}),
    ...(f.expiry.trim() !== "" ? { expiryMinutes: number(f.expiry) } : {}),
    critical: f.critical,
  };
}

function validator(rules: readonly RoutingRule[], index: number) {
  return (
    input: unknown,
  ): { ok: true; value: RoutingRule } | { ok: false; issues: Array<{ path: string; message: string }> } => {
    const one = RoutingRuleSchema.safeParse(input);
    if (!one.success) return { ok: false, issues: issuesOfResult(one) };
    const all = rules.map((r, i) => (i === index ? one.data : r));
    if (index >= rules.length) all.push(one.data);
    const together = RoutingSchema.safeParse({ rules: all });
    if (!together.success) {
      const mine = together.error.issues
        .filter((i) => i.path[1] === index)
        .map((i) => ({ path: i.path.slice(2).map(String).join("."), message: i.message }));
      if (mine.length > 0) return { ok: false, issues: mine };
    }
    return { ok: true, value: one.data };
  };
}

function RuleEditor({
  rules,
  index,
  onChange,
  onRemove,
  onUp,
}: {
  rules: readonly RoutingRule[];
  index: number;
  onChange: (rule: RoutingRule) => void;
  onRemove?: () => void;
  onUp?: () => void;
}) {
  const rule = rules[index];
  const adding = rule === undefined;
  const item = useItemForm<RuleForm, RoutingRule>({
    value: rule,
    toForm,
    build,
    validate: validator(rules, index),
    ...(adding ? {} : { commit: onChange }),
  });
  const quiet = adding && item.form.id.trim() === "" && item.form.approvers.trim() === "";
  const issue = (path: string) => (quiet ? undefined : item.issueFor(path));
  const { form } = item;
  const title = adding ? "New rule" : `Rule ${index + 1}: ${rule.id}`;
  return (
    <fieldset
      className="space-y-2 rounded-md border border-slate-200 p-2 dark:border-slate-800"
      data-testid={adding ? "routing-rule-new" : "routing-rule"}
    >
      <legend className="px-1 text-xs font-semibold">{title}</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        <ItemInput
          label="Name of the rule"
          value={form.id}
          onChange={(id) => item.set({ id })}
          issue={issue("id")}
          placeholder="e.g. finance-exec"
        />
        <ItemInput
          label="Approvers (e-mail addresses)"
          value={form.approvers}
          onChange={(approvers) => item.set({ approvers })}
          issue={issue("approvers")}
          description="Owners who may decide; comma-separated."
        />
        <ItemInput
          label="When the requester is in team"
          value={form.teams}
          onChange={(teams) => item.set({ teams })}
          issue={issue("match.teams")}
          description="Empty: any team."
        />
        <ItemInput
          label="When the chat's agent is"
          value={form.agents}
          onChange={(agents) => item.set({ agents })}
          issue={issue("match.agents")}
          description="Empty: any agent."
        />
        <ItemInput
          label="When the tool is"
          value={form.tools}
          onChange={(tools) => item.set({ tools })}
          issue={issue("match.tools")}
          description="Names, groups (group:fs) or wildcards (mcp__*); empty: any tool."
        />
        <ItemInput
          label="Request expires after (minutes)"
          value={form.expiry}
          onChange={(expiry) => item.set({ expiry })}
          issue={issue("expiryMinutes")}
          description="Empty: the default expiry; at most 43,200 (30 days)."
        />
        <ItemInput
          label="If undecided, also ask after (minutes)"
          value={form.escalateAfter}
          onChange={(escalateAfter) => item.set({ escalateAfter })}
          issue={issue("escalation.afterMinutes")}
        />
        <ItemInput
          label="…these people (e-mail addresses)"
          value={form.escalateTo}
          onChange={(escalateTo) => item.set({ escalateTo })}
          issue={issue("escalation.to")}
        />
      </div>
      <fieldset className="text-xs">
        <legend className="font-medium">When the request shows one of these risks (none ticked: any)</legend>
        <div className="flex flex-wrap gap-x-3">
          {ROUTING_RISK_KINDS.map((kind) => (
            <label key={kind} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={form.risks.includes(kind)}
                onChange={(e) =>
                  item.set({ risks: e.target.checked ? [...form.risks, kind] : form.risks.filter((r) => r !== kind) })
                }
              />
              {RISK_LABELS[kind]}
            </label>
          ))}
        </div>
      </fieldset>
      <label className="flex items-center gap-1.5 text-xs">
        <input type="checkbox" checked={form.critical} onChange={(e) => item.set({ critical: e.target.checked })} />
        <span>
          <span className="font-medium">Critical: two different owners must allow</span>{" "}
          <span className="text-slate-600 dark:text-slate-400">(any deny wins; needs two approvers)</span>
        </span>
      </label>
      <div className="flex flex-wrap gap-2">
        {adding ? (
          <button
            type="button"
            className={button}
            disabled={!item.result.ok}
            onClick={() => item.result.ok && (onChange(item.result.value), item.reset())}
          >
            Add rule
          </button>
        ) : (
          <>
            {onUp && (
              <button type="button" className={button} onClick={onUp} aria-label={`Move ${rule.id} up`}>
                Move up
              </button>
            )}
            <button type="button" className={button} onClick={onRemove} aria-label={`Remove ${rule.id}`}>
              Remove
            </button>
          </>
        )}
        {!quiet && !item.result.ok && !adding && (
          <span className="text-xs text-rose-700 dark:text-rose-300">Not in the draft until fixed.</span>
        )}
      </div>
    </fieldset>
  );
}

const toolList = z.array(z.string().trim().min(1, "an entry cannot be empty"));

export function AskRoutingForm({
  document,
  onChange,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
}) {
  const rules = document.routing.rules;
  const setRules = (next: RoutingRule[]) => onChange({ ...structuredClone(document), routing: { rules: next } });
  return (
    <div className="space-y-3">
      <section className={box} aria-labelledby="ask-rules">
        <h3 id="ask-rules" className="text-sm font-semibold">
          Tools that always need an owner’s approval
        </h3>
        <ListField
          label="Ask before every call of"
          value={document.askRules}
          schema={toolList}
          onCommit={(askRules) => onChange({ ...structuredClone(document), askRules })}
          description="Tool names (write), groups (group:fs) or wildcards (mcp__*). Their cells in the matrix read “needs approval”. In the JSON: askRules."
        />
      </section>
      <section className={box} aria-labelledby="routing-rules">
        <h3 id="routing-rules" className="text-sm font-semibold">
          Who approves what
        </h3>
        <p className={help}>
          A request goes to the first rule (top to bottom) whose every filled-in condition matches; without a matching
          rule any owner decides. Routing changes who is asked, not which tools are available, so it changes no cell in
          the matrix.
        </p>
        {rules.map((rule, index) => (
          <RuleEditor
            key={index}
            rules={rules}
            index={index}
            onChange={(r) => setRules(rules.map((x, i) => (i === index ? r : x)))}
            onRemove={() => setRules(rules.filter((_, i) => i !== index))}
            {...(index > 0
              ? {
                  onUp: () =>
                    setRules(rules.map((x, i) => (i === index - 1 ? rule : i === index ? rules[index - 1]! : x))),
                }
              : {})}
          />
        ))}
        <RuleEditor rules={rules} index={rules.length} onChange={(r) => setRules([...rules, r])} />
      </section>
    </div>
  );
}
