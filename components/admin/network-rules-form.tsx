"use client";
// Network by domain for sandboxed commands (exec.network): one row per domain with the plain-HTTP methods and the
// ports it may use, a row to add one, the upload cap and whether an unlisted domain asks an owner. Every row is
// checked with EgressRuleSchema as you type; a row is written into the draft only when it is valid.
import type { z } from "zod";
import { EgressRuleSchema, NetworkSettingsSchema, type EgressRule, type NetworkSettings } from "@/lib/policy/egress";
import { parseList } from "./list-input";
import { box, button, ByteField, Check, help, NumberField } from "./field-controls";
import { issuesOfResult, ItemInput, useItemForm } from "./item-form";

type RuleForm = { domain: string; methods: string; ports: string };

const toForm = (rule: EgressRule | undefined): RuleForm => ({
  domain: rule?.domain ?? "",
  methods: (rule?.methods ?? ["GET", "HEAD"]).join(", "),
  ports: (rule?.ports ?? [80, 443]).join(", "),
});
const build = (f: RuleForm) => ({
  domain: f.domain,
  methods: parseList(f.methods),
  // A port that is not a number stays text, so the schema names it ("expected number").
  ports: parseList(f.ports).map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
});

function validateRule(others: readonly EgressRule[]) {
  return (
    input: unknown,
  ): { ok: true; value: EgressRule } | { ok: false; issues: Array<{ path: string; message: string }> } => {
    const result = EgressRuleSchema.safeParse(input);
    if (!result.success) return { ok: false, issues: issuesOfResult(result) };
    if (others.some((r) => r.domain === result.data.domain))
      return { ok: false, issues: [{ path: "domain", message: `${result.data.domain} is already listed` }] };
    return { ok: true, value: result.data };
  };
}

function RuleRow({
  rule,
  others,
  onChange,
  onRemove,
  index,
}: {
  rule?: EgressRule;
  others: readonly EgressRule[];
  onChange: (rule: EgressRule) => void;
  onRemove?: () => void;
  index: number;
}) {
  const adding = rule === undefined;
  const item = useItemForm<RuleForm, EgressRule>({
    value: rule,
    toForm,
    build,
    validate: validateRule(others),
    ...(adding ? {} : { commit: onChange }),
  });
  // An empty new row is not an error yet.
  const quiet = adding && item.form.domain.trim() === "";
  const issue = (path: string) => (quiet ? undefined : item.issueFor(path));
  const n = adding ? "new domain" : `domain ${index + 1}`;
  return (
    <div
      className="grid items-start gap-2 border-t border-slate-100 pt-2 sm:grid-cols-[1fr_9rem_7rem_auto] dark:border-slate-800"
      data-testid={adding ? "network-rule-new" : "network-rule"}
    >
      <ItemInput
        label={`Domain (${n})`}
        value={item.form.domain}
        onChange={(domain) => item.set({ domain })}
        issue={issue("domain")}
        placeholder="registry.npmjs.org or *.example.com"
      />
      <ItemInput
        label="Plain-HTTP methods"
        value={item.form.methods}
        onChange={(methods) => item.set({ methods })}
        issue={issue("methods")}
        description="HTTPS carries any."
      />
      <ItemInput
        label="Ports"
        value={item.form.ports}
        onChange={(ports) => item.set({ ports })}
        issue={issue("ports")}
      />
      <div className="pt-4">
        {adding ? (
          <button
            type="button"
            className={button}
            disabled={!item.result.ok}
            onClick={() => {
              if (!item.result.ok) return;
              onChange(item.result.value);
              item.reset();
            }}
          >
            Add domain
          </button>
        ) : (
          <button type="button" className={button} onClick={onRemove} aria-label={`Remove ${rule.domain}`}>
            Remove
          </button>
        )}
      </div>
    </div>
  );
}

const N = NetworkSettingsSchema.shape;

export function NetworkRulesForm({
  network,
  onChange,
}: {
  network: NetworkSettings;
  onChange: (next: NetworkSettings) => void;
}) {
  const set = (patch: Partial<NetworkSettings>) => onChange({ ...structuredClone(network), ...patch });
  const replace = (index: number, rule: EgressRule) =>
    set({ allow: network.allow.map((r, i) => (i === index ? rule : r)) });
  return (
    <section className={box} aria-labelledby="network-rules">
      <h3 id="network-rules" className="text-sm font-semibold">
        Network for sandboxed commands
      </h3>
      <p className={help}>
        Sandboxed commands reach no network except these domains (through a proxy). “*.example.com” covers every name
        below example.com, not example.com itself. Plain HTTP is read-only (GET, HEAD) unless a row names more methods.
      </p>
      {network.allow.length === 0 && <p className="text-xs">No domain is listed.</p>}
      {network.allow.map((rule, index) => (
        <RuleRow
          key={index}
          index={index}
          rule={rule}
          others={network.allow.filter((_, i) => i !== index)}
          onChange={(r) => replace(index, r)}
          onRemove={() => set({ allow: network.allow.filter((_, i) => i !== index) })}
        />
      ))}
      <RuleRow
        index={network.allow.length}
        others={network.allow}
        onChange={(rule) => set({ allow: [...network.allow, rule] })}
      />
      <div className="flex flex-wrap gap-3 border-t border-slate-100 pt-2 dark:border-slate-800">
        <ByteField
          label="Upload per command"
          value={network.uploadBytes}
          schema={N.uploadBytes as z.ZodType<number>}
          onCommit={(uploadBytes) => set({ uploadBytes })}
          description="Everything one command sends out, all connections together."
        />
        <NumberField
          label="Domain requests per command"
          value={network.maxRequestsPerCommand}
          schema={N.maxRequestsPerCommand as z.ZodType<number>}
          onCommit={(maxRequestsPerCommand) => set({ maxRequestsPerCommand })}
          description="0 to 20; beyond that, unlisted domains are refused without asking."
        />
      </div>
      <Check
        label="Ask an owner about an unlisted domain"
        checked={network.askUnlisted}
        onChange={(askUnlisted) => set({ askUnlisted })}
        description="Off: a command that tries an unlisted domain is refused without asking anyone."
      />
    </section>
  );
}
