"use client";
// Tool profiles: named tool lists that the global tools, a provider or an agent can start from ("profile": …).
// The built-in ones are shown for reference; your own are edited here. A profile in use cannot be removed.
import { newIdProblem, profileUses } from "@/lib/admin/form-checks";
import { TOOL_PROFILES, type PolicyDocument, type ToolMeta } from "@/lib/policy";
import { button, ToolListField } from "./field-controls";
import { AddKeyForm } from "./key-pickers";

type Key = "allow" | "alsoAllow" | "deny";

export function ProfilesForm({
  document,
  tools,
  onChange,
}: {
  document: PolicyDocument;
  tools: readonly ToolMeta[];
  onChange: (next: PolicyDocument) => void;
}) {
  const ids = Object.keys(document.profiles).sort();
  const edit = (mutate: (d: PolicyDocument) => void) => {
    const next = structuredClone(document);
    mutate(next);
    onChange(next);
  };
  const setList = (id: string, key: Key, list: string[] | undefined) =>
    edit((d) => {
      const profile = { ...d.profiles[id] };
      if (list) profile[key] = list;
      else delete profile[key];
      d.profiles[id] = profile;
    });
  return (
    <section
      aria-labelledby="profiles-form"
      className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
    >
      <h3 id="profiles-form" className="text-sm font-semibold">
        Tool profiles
      </h3>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        A profile is a named starting set of tools. Built in:{" "}
        {Object.entries(TOOL_PROFILES).map(([id, p], i) => (
          <span key={id}>
            {i > 0 && "; "}
            <strong>{id}</strong> ({p.allow ? `${p.allow.length} entries` : "every tool"})
          </span>
        ))}
        .
      </p>
      {ids.length === 0 && <p className="text-xs text-slate-600 dark:text-slate-400">No profiles of your own yet.</p>}
      {ids.map((id) => {
        const uses = profileUses(document, id);
        const profile = document.profiles[id] ?? {};
        return (
          <div
            key={id}
            className="space-y-2 border-t border-slate-100 pt-2 dark:border-slate-800"
            data-testid={`profile-form-${id}`}
          >
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h4 className="text-xs font-semibold">
                Profile <code className="font-mono">{id}</code>
                {uses.length > 0 && (
                  <span className="font-normal text-slate-600 dark:text-slate-400"> — used by {uses.join(", ")}</span>
                )}
              </h4>
              <button
                type="button"
                className={`${button} text-rose-700 disabled:opacity-50 dark:text-rose-300`}
                disabled={uses.length > 0}
                title={uses.length > 0 ? "In use: choose another profile there first" : undefined}
                onClick={() => edit((d) => void delete d.profiles[id])}
              >
                Remove profile {id}
              </button>
            </div>
            <div className="grid gap-3 sm:grid-cols-2">
              <ToolListField
                label={`Only allow (profile ${id})`}
                value={profile.allow}
                tools={tools}
                onCommit={(l) => setList(id, "allow", l)}
                description="Empty: every tool."
              />
              <ToolListField
                label={`Also allow (profile ${id})`}
                value={profile.alsoAllow}
                tools={tools}
                onCommit={(l) => setList(id, "alsoAllow", l)}
              />
              <ToolListField
                label={`Never allow (profile ${id})`}
                value={profile.deny}
                tools={tools}
                onCommit={(l) => setList(id, "deny", l)}
              />
            </div>
          </div>
        );
      })}
      <AddKeyForm
        label="New profile id"
        button="Add profile"
        placeholder="e.g. research"
        problemOf={(key) => newIdProblem(key, { taken: ids, kind: "profile", builtinProfiles: true })}
        onAdd={(key) => edit((d) => void (d.profiles[key] = { allow: ["read"] }))}
      />
    </section>
  );
}
