"use client";
// Rules per model provider (tools.byProvider): for "openai" or the more specific "openai/gpt-4o", a profile and
// lists that narrow the global tools when that provider or model runs the chat. The more specific key wins.
import { providerKeyProblem } from "@/lib/admin/form-checks";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { AddKeyForm, buttonClass, ProfileSelect, ToolListField } from "./form-fields";

type Key = "allow" | "alsoAllow" | "deny" | "profile";

export function ProvidersForm({ document, tools, onChange }: { document: PolicyDocument; tools: readonly ToolMeta[]; onChange: (next: PolicyDocument) => void }) {
  const byProvider = document.tools.byProvider ?? {};
  const keys = Object.keys(byProvider).sort();
  const profiles = Object.keys(document.profiles).sort();
  const edit = (mutate: (rules: Record<string, PolicyDocument["profiles"][string] & { profile?: string }>) => void) => {
    const next = structuredClone(document);
    const rules = { ...(next.tools.byProvider ?? {}) };
    mutate(rules);
    if (Object.keys(rules).length > 0) next.tools.byProvider = rules;
    else delete next.tools.byProvider;
    onChange(next);
  };
  const set = (key: string, field: Key, value: string[] | string | undefined) =>
    edit((rules) => {
      const entry: Record<string, unknown> = { ...rules[key] };
      if (value === undefined) delete entry[field];
      else entry[field] = value;
      rules[key] = entry;
    });
  return (
    <section aria-labelledby="providers-form" className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800">
      <h3 id="providers-form" className="text-sm font-semibold">Model providers</h3>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Narrow the tools when a given provider (openai) or model (openai/gpt-4o) runs the chat; the model&apos;s rules beat the provider&apos;s. Pick the provider/model in the matrix&apos;s context to see the effect. Per-agent provider rules are in the JSON tab.
      </p>
      {keys.length === 0 && <p className="text-xs text-slate-600 dark:text-slate-400">No provider rules yet: every provider gets the global tools.</p>}
      {keys.map((key) => {
        const entry = byProvider[key] ?? {};
        return (
          <div key={key} className="space-y-2 border-t border-slate-100 pt-2 dark:border-slate-800" data-testid={`provider-form-${key}`}>
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h4 className="text-xs font-semibold">
                {key.includes("/") ? "Model" : "Provider"} <code className="font-mono">{key}</code>
              </h4>
              <button type="button" className={`${buttonClass} text-rose-700 dark:text-rose-300`} onClick={() => edit((rules) => void delete rules[key])}>
                Remove rules for {key}
              </button>
            </div>
            <div className="grid gap-3 sm:grid-cols-2">
              <ProfileSelect label={`Profile for ${key}`} value={entry.profile} custom={profiles} onChange={(p) => set(key, "profile", p)} />
              <ToolListField label={`Only allow (${key})`} value={entry.allow} tools={tools} onCommit={(l) => set(key, "allow", l)} help="Empty: no narrowing by an allow list." />
              <ToolListField label={`Also allow (${key})`} value={entry.alsoAllow} tools={tools} onCommit={(l) => set(key, "alsoAllow", l)} />
              <ToolListField label={`Never allow (${key})`} value={entry.deny} tools={tools} onCommit={(l) => set(key, "deny", l)} />
            </div>
          </div>
        );
      })}
      <AddKeyForm
        label="Provider or provider/model"
        button="Add provider rules"
        placeholder="e.g. openai or openai/gpt-4o"
        problemOf={(key) => providerKeyProblem(key, keys)}
        onAdd={(key) => edit((rules) => void (rules[key] = {}))}
      />
    </section>
  );
}
