"use client";
// Rules per model provider (a tools.byProvider record, global or one agent's): for "openai" or the more specific
// "openai/gpt-4o", a profile and lists that narrow the tools when that provider or model runs the chat. The same
// form serves the document's own rules and each agent's, so both look and check the same.
import { providerKeyProblem } from "@/lib/admin/form-checks";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { button, ToolListField } from "./field-controls";
import { AddKeyForm, ProfileSelect } from "./key-pickers";

type Rules = NonNullable<PolicyDocument["tools"]["byProvider"]>;
type Key = "allow" | "alsoAllow" | "deny" | "profile";

/**
 * The rules of one record; `onChange` gets undefined when the last rule is removed. `owner` (an agent) is named in
 * every label ("Never allow (openai, agent coder)"), so no field or button of an agent's rules has a name that
 * contains another's (the global "Never allow (openai)", the agent's own "Never allow (coder)", "Add agent").
 */
export function ProviderRules({
  rules,
  profiles,
  tools,
  owner,
  onChange,
}: {
  rules: Rules | undefined;
  profiles: readonly string[];
  tools: readonly ToolMeta[];
  owner?: string;
  onChange: (next: Rules | undefined) => void;
}) {
  const current = rules ?? {};
  const keys = Object.keys(current).sort();
  const edit = (mutate: (next: Rules) => void) => {
    const next = structuredClone(current);
    mutate(next);
    onChange(Object.keys(next).length > 0 ? next : undefined);
  };
  const set = (key: string, field: Key, value: string[] | string | undefined) =>
    edit((next) => {
      const entry: Record<string, unknown> = { ...next[key] };
      if (value === undefined) delete entry[field];
      else entry[field] = value;
      next[key] = entry;
    });
  const of = (key: string) => (owner ? `${key}, agent ${owner}` : key);
  return (
    <>
      {keys.map((key) => {
        const entry = current[key] ?? {};
        return (
          <div
            key={key}
            className="space-y-2 border-t border-slate-100 pt-2 dark:border-slate-800"
            data-testid={owner ? `agent-provider-form-${owner}-${key}` : `provider-form-${key}`}
          >
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h4 className="text-xs font-semibold">
                {key.includes("/") ? "Model" : "Provider"} <code className="font-mono">{key}</code>
              </h4>
              <button
                type="button"
                className={`${button} text-rose-700 dark:text-rose-300`}
                onClick={() => edit((next) => void delete next[key])}
              >
                {owner ? `Remove rules of agent ${owner} for ${key}` : `Remove rules for ${key}`}
              </button>
            </div>
            <div className="grid gap-3 sm:grid-cols-2">
              <ProfileSelect
                label={owner ? `Profile (${of(key)})` : `Profile for ${key}`}
                value={entry.profile}
                custom={profiles}
                onChange={(p) => set(key, "profile", p)}
              />
              <ToolListField
                label={`Only allow (${of(key)})`}
                value={entry.allow}
                tools={tools}
                onCommit={(l) => set(key, "allow", l)}
                description="Empty: no narrowing by an allow list."
              />
              <ToolListField
                label={`Also allow (${of(key)})`}
                value={entry.alsoAllow}
                tools={tools}
                onCommit={(l) => set(key, "alsoAllow", l)}
              />
              <ToolListField
                label={`Never allow (${of(key)})`}
                value={entry.deny}
                tools={tools}
                onCommit={(l) => set(key, "deny", l)}
              />
            </div>
          </div>
        );
      })}
      <AddKeyForm
        label={owner ? `Provider (or provider/model) for agent ${owner}` : "Provider or provider/model"}
        button={owner ? `Add rules by provider for ${owner}` : "Add provider rules"}
        placeholder="e.g. openai or openai/gpt-4o"
        problemOf={(key) => providerKeyProblem(key, keys)}
        onAdd={(key) => edit((next) => void (next[key] = {}))}
      />
    </>
  );
}
