"use client";
// Subagents as a form: how deep agents may start helpers (maxSpawnDepth) and which tools a helper may use.
import { z } from "zod";
import type { PolicyDocument } from "@/lib/policy";
import { SubagentsConfigSchema } from "@/lib/policy/document";
import { toolPolicy } from "./exec-sandbox-form";
import { box, help, ListField, NumberField } from "./field-controls";

const names = z.array(z.string().trim().min(1, "an entry cannot be empty"));

export function SubagentsForm({
  document,
  onChange,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
}) {
  const { subagents } = document;
  const set = (patch: Partial<PolicyDocument["subagents"]>) =>
    onChange({ ...structuredClone(document), subagents: { ...structuredClone(subagents), ...patch } });
  return (
    <section className={box} aria-labelledby="subagents-form">
      <h3 id="subagents-form" className="text-sm font-semibold">
        Subagents (helpers an agent starts)
      </h3>
      <NumberField
        label="How many levels of helpers"
        value={subagents.maxSpawnDepth}
        schema={SubagentsConfigSchema.shape.maxSpawnDepth as z.ZodType<number>}
        onCommit={(maxSpawnDepth) => set({ maxSpawnDepth })}
        description="0: agents cannot start helpers. 1: a chat's agent may start helpers, which cannot start their own. At most 10."
      />
      <ListField
        label="Tools a helper may use (empty: what its parent may use)"
        value={subagents.tools.allow ?? []}
        schema={names}
        onCommit={(allow) => set({ tools: toolPolicy(subagents.tools, "allow", allow) })}
        description="A helper never gets more than its parent. Names, groups (group:fs) or wildcards."
      />
      <ListField
        label="Tools a helper may not use"
        value={subagents.tools.deny ?? []}
        schema={names}
        onCommit={(deny) => set({ tools: toolPolicy(subagents.tools, "deny", deny) })}
      />
      <p className={help}>To see the effect in the matrix, set “Subagent depth” to 1 or more in the context above.</p>
    </section>
  );
}
