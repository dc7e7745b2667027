"use client";
// The context the matrix is computed for: who asks, with which provider/model, agent, team, sandbox, depth. Picking a
// person takes their roles and teams (the context a chat of theirs has); picking a role alone is a hypothetical
// person with those roles.
import type { MatrixContextInput } from "@/lib/admin/schemas";
import type { AdminUser } from "./types";

const ROLE_SETS = {
  member: ["member"],
  owner: ["member", "owner"],
  admin: ["member", "owner", "admin"],
} as const;

const field = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";

export function ContextPicker({
  value,
  onChange,
  agents,
  teams,
  users,
}: {
  value: MatrixContextInput;
  onChange: (next: MatrixContextInput) => void;
  agents: string[];
  teams: string[];
  users: Pick<AdminUser, "id" | "email" | "roles" | "teamIds">[];
}) {
  const role = value.roles?.includes("admin") ? "admin" : value.roles?.includes("owner") ? "owner" : "member";
  const providerModel = [value.provider, value.model].filter(Boolean).join("/");
  const set = (patch: Partial<MatrixContextInput>) => {
    const next: Record<string, unknown> = { ...value, ...patch };
    for (const key of Object.keys(next)) if (next[key] === undefined || next[key] === "") delete next[key];
    onChange(next as MatrixContextInput);
  };
  return (
    <fieldset
      className="flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      aria-label="Context of the matrix"
    >
      <legend className="px-1 text-sm font-semibold">Context</legend>
      <label className="flex flex-col text-xs">
        Role
        <select
          className={field}
          value={role}
          onChange={(e) =>
            set({ roles: [...ROLE_SETS[e.target.value as keyof typeof ROLE_SETS]], senderId: undefined })
          }
        >
          <option value="member">member</option>
          <option value="owner">owner (+member)</option>
          <option value="admin">admin (+owner, member)</option>
        </select>
      </label>
      <label className="flex flex-col text-xs">
        Provider/model
        <input
          className={`${field} w-44`}
          placeholder="offline or openai/gpt-4o"
          value={providerModel}
          onChange={(e) => {
            const [provider, ...model] = e.target.value.trim().split("/");
            set({ provider: provider || undefined, model: model.join("/") || undefined });
          }}
        />
      </label>
      <label className="flex flex-col text-xs">
        Agent
        <select
          className={field}
          value={value.agentId ?? ""}
          onChange={(e) => set({ agentId: e.target.value || undefined })}
        >
          <option value="">none</option>
          {agents.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs">
        Team
        <select
          className={field}
          value={value.teamIds?.[0] ?? ""}
          onChange={(e) => set({ teamIds: e.target.value ? [e.target.value] : undefined })}
        >
          <option value="">none</option>
          {teams.map((id) => (
            <option key={id} value={id}>
              {id}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col text-xs">
        Person
        <select
          className={field}
          value={value.senderId ?? ""}
          onChange={(e) => {
            const user = users.find((u) => u.id === e.target.value);
            set(
              user
                ? {
                    roles: [...user.roles],
                    teamIds: user.teamIds.length ? [...user.teamIds] : undefined,
                    senderId: user.id,
                  }
                : { senderId: undefined },
            );
          }}
        >
          <option value="">anyone with the role</option>
          {users.map((u) => (
            <option key={u.id} value={u.id}>
              {u.email}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1 text-xs">
        <input
          type="checkbox"
          checked={value.sandboxed === true}
          onChange={(e) => set({ sandboxed: e.target.checked || undefined })}
        />
        Sandboxed
      </label>
      <label className="flex flex-col text-xs">
        Subagent depth
        <input
          className={`${field} w-20`}
          type="number"
          min={0}
          max={10}
          value={value.subagentDepth ?? 0}
          onChange={(e) => set({ subagentDepth: Math.max(0, Math.min(10, Number(e.target.value) || 0)) || undefined })}
        />
      </label>
    </fieldset>
  );
}
