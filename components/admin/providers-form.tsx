"use client";
// Rules per model provider (tools.byProvider) of the whole document: they narrow the global tools when that
// provider or model runs the chat. An agent's own provider rules are in its card (agent-card.tsx).
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { ProviderRules } from "./provider-rules";

export function ProvidersForm({
  document,
  tools,
  onChange,
}: {
  document: PolicyDocument;
  tools: readonly ToolMeta[];
  onChange: (next: PolicyDocument) => void;
}) {
  const byProvider = document.tools.byProvider ?? {};
  const profiles = Object.keys(document.profiles).sort();
  return (
    <section
      aria-labelledby="providers-form"
      className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
    >
      <h3 id="providers-form" className="text-sm font-semibold">
        Model providers
      </h3>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Narrow the tools when a given provider (openai) or model (openai/gpt-4o) runs the chat; the model&apos;s rules
        beat the provider&apos;s. Pick the provider/model in the matrix&apos;s context to see the effect. An
        agent&apos;s own provider rules are in its card.
      </p>
      {Object.keys(byProvider).length === 0 && (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          No provider rules yet: every provider gets the global tools.
        </p>
      )}
      <ProviderRules
        rules={byProvider}
        profiles={profiles}
        tools={tools}
        onChange={(rules) => {
          const next = structuredClone(document);
          if (rules) next.tools.byProvider = rules;
          else delete next.tools.byProvider;
          onChange(next);
        }}
      />
    </section>
  );
}
