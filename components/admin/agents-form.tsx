"use client";
// The agents of the policy document as forms (one card each), with adding and removing. Each edit rewrites the
// draft, so the JSON tab, the matrix and its "also changes" list follow at once; nothing is saved until Save.
import { newIdProblem } from "@/lib/admin/form-checks";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { AgentCard } from "./agent-card";
import { AddKeyForm } from "./key-pickers";
import type { AdminTeam, AdminUser } from "./types";

export function AgentsForm({
  document,
  tools,
  teams,
  users,
  onChange,
  onShowAgent,
}: {
  document: PolicyDocument;
  tools: readonly ToolMeta[];
  teams: readonly AdminTeam[];
  users: readonly AdminUser[];
  onChange: (next: PolicyDocument) => void;
  onShowAgent?: (agentId: string) => void;
}) {
  const ids = Object.keys(document.agents).sort();
  const profiles = Object.keys(document.profiles).sort();
  const edit = (mutate: (d: PolicyDocument) => void) => {
    const next = structuredClone(document);
    mutate(next);
    onChange(next);
  };
  return (
    <section aria-labelledby="agents-form" className="space-y-3">
      <h3 id="agents-form" className="text-sm font-semibold">
        Agents
      </h3>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        An agent is a persona with its own tools and model. Its tool lists can only narrow what the global, provider and
        team rules allow.
      </p>
      {ids.length === 0 && (
        <p className="text-xs text-slate-600 dark:text-slate-400">No agents yet: chats use the default assistant.</p>
      )}
      {ids.map((id) => (
        <AgentCard
          key={id}
          id={id}
          agent={document.agents[id]!}
          profiles={profiles}
          tools={tools}
          teams={teams}
          users={users}
          onChange={(agent) => edit((d) => void (d.agents[id] = agent))}
          onRemove={() => edit((d) => void delete d.agents[id])}
          {...(onShowAgent ? { onShow: () => onShowAgent(id) } : {})}
        />
      ))}
      <AddKeyForm
        label="New agent id"
        button="Add agent"
        placeholder="e.g. coder"
        problemOf={(key) => newIdProblem(key, { taken: ids, kind: "agent" })}
        onAdd={(key) => edit((d) => void (d.agents[key] = { name: key, tools: {} }))}
      />
    </section>
  );
}
