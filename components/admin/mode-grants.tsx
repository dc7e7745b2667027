"use client";
// Which modes each role, team or user may switch to: the policy document's modeGrants, saved as a new version.
// Users are keyed by e-mail: the admin API shows and takes per-user grants by e-mail (lib/admin/grant-emails.ts).
import { useState } from "react";
import { ROLES, TOOL_MODES, type PolicyDocument, type ToolMode } from "@/lib/policy";
import { ApiError } from "./api";
import { usePolicy, useSavePolicy } from "./use-policy-api";
import type { AdminTeam, AdminUser } from "./types";

type Scope = "roles" | "teams" | "users";

export function ModeGrants({ users, teams }: { users: AdminUser[]; teams: AdminTeam[] }) {
  const policy = usePolicy();
  const save = useSavePolicy();
  const [draft, setDraft] = useState<PolicyDocument["modeGrants"]>();
  if (!policy.data) return <p role="status">Loading mode grants…</p>;
  const grants = draft ?? policy.data.document.modeGrants;
  const toggle = (scope: Scope, key: string, mode: ToolMode, on: boolean) => {
    const next = structuredClone(grants);
    const table = next[scope] as Record<string, ToolMode[]>;
    const modes = new Set(table[key] ?? []);
    if (on) modes.add(mode);
    else modes.delete(mode);
    if (scope !== "roles" && modes.size === 0) delete table[key];
    else table[key] = TOOL_MODES.filter((m) => modes.has(m));
    setDraft(next);
  };
  const row = (scope: Scope, key: string, label: string) => {
    const modes = (grants[scope] as Record<string, ToolMode[] | undefined>)[key] ?? [];
    return (
      <tr key={`${scope}:${key}`} className="border-b border-slate-100 dark:border-slate-900">
        <th scope="row" className="py-1 pr-4 text-left font-normal">
          {label}
        </th>
        {TOOL_MODES.map((mode) => (
          <td key={mode} className="px-3">
            <input
              type="checkbox"
              aria-label={`${label} may use ${mode}`}
              checked={modes.includes(mode)}
              onChange={(e) => toggle(scope, key, mode, e.target.checked)}
            />
          </td>
        ))}
      </tr>
    );
  };
  const error = save.error instanceof ApiError ? save.error : undefined;
  return (
    <section aria-labelledby="mode-grants" className="space-y-2">
      <h2 id="mode-grants" className="text-lg font-semibold">
        Mode grants
      </h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        A person may switch a session to a mode granted to any of their roles, teams or to them; chat_safe is always
        allowed. Saved as a new policy version.
      </p>
      <table className="text-sm">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-800">
            <th scope="col" className="pr-4 text-left">
              Who
            </th>
            {TOOL_MODES.map((m) => (
              <th key={m} scope="col" className="px-3 text-left">
                {m}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {ROLES.map((role) => row("roles", role, `role ${role}`))}
          {teams.map((team) => row("teams", team.id, `team ${team.id}`))}
          {users.map((user) => row("users", user.email, user.email))}
        </tbody>
      </table>
      <div className="flex items-center gap-2">
        <button
          type="button"
          disabled={!draft || save.isPending}
          onClick={() =>
            save.mutate(
              {
                baseVersion: policy.data.version,
                document: { ...policy.data.document, modeGrants: grants },
                comment: "mode grants",
              },
              { onSuccess: () => setDraft(undefined) },
            )
          }
          className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
        >
          Save mode grants
        </button>
        {draft && (
          <button
            type="button"
            onClick={() => setDraft(undefined)}
            className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
          >
            Discard
          </button>
        )}
        {error && (
          <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
            ✕ {error.message}
          </p>
        )}
        {save.isSuccess && !draft && (
          <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">
            ✓ Saved as policy version {save.data.version}.
          </p>
        )}
      </div>
    </section>
  );
}
