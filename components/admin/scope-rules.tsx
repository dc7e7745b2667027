"use client";
// Allow/deny lists of the group layer: per team (the user's teams) and per sender (one user). Teams come from
// /admin/users; a team or user without rules is simply not listed in the document.
import type { PolicyDocument } from "@/lib/policy";
import { ListInput } from "./list-input";
import type { AdminTeam, AdminUser } from "./types";

type Scope = "teams" | "senders";

export function ScopeRules({
  document,
  teams,
  users,
  onChange,
}: {
  document: PolicyDocument;
  teams: AdminTeam[];
  users: AdminUser[];
  onChange: (next: PolicyDocument) => void;
}) {
  const set = (scope: Scope, id: string, key: "allow" | "deny", list: string[] | undefined) => {
    const next = structuredClone(document);
    const rules = { ...(next[scope][id] ?? {}) };
    if (list) rules[key] = list;
    else delete rules[key];
    if (Object.keys(rules).length === 0) delete next[scope][id];
    else next[scope][id] = rules;
    onChange(next);
  };
  const teamIds = [...new Set([...teams.map((t) => t.id), ...Object.keys(document.teams)])].sort();
  const senderIds = [...new Set([...users.map((u) => u.id), ...Object.keys(document.senders)])];
  const label = (id: string) => users.find((u) => u.id === id)?.email ?? id;
  const block = (scope: Scope, id: string, title: string) => (
    <div
      key={`${scope}:${id}`}
      className="grid gap-2 border-t border-slate-100 pt-2 sm:grid-cols-[12rem_1fr_1fr] dark:border-slate-800"
    >
      <span className="text-xs font-medium">{title}</span>
      <ListInput
        label={`Allow for ${title}`}
        value={document[scope][id]?.allow}
        onCommit={(l) => set(scope, id, "allow", l)}
      />
      <ListInput
        label={`Deny for ${title}`}
        value={document[scope][id]?.deny}
        onCommit={(l) => set(scope, id, "deny", l)}
      />
    </div>
  );
  return (
    <section
      aria-labelledby="scope-rules"
      className="space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
    >
      <h3 id="scope-rules" className="text-sm font-semibold">
        Teams and senders (group layer)
      </h3>
      {teamIds.length === 0 && (
        <p className="text-xs text-slate-500 dark:text-slate-400">No teams yet: create them in Users and roles.</p>
      )}
      {teamIds.map((id) => block("teams", id, `team ${id}`))}
      {senderIds.map((id) => block("senders", id, label(id)))}
    </section>
  );
}
