"use client";
// /admin/users: accounts and roles, teams and their members, and mode grants. Changes are pushed to the
// affected person's open pages.
import { useState } from "react";
import { ConfirmDialog, type Confirmation } from "./confirm-dialog";
import { ModeGrants } from "./mode-grants";
import { NewUserForm } from "./new-user-form";
import { OneTimePasswordPanel } from "./one-time-password";
import { UsersTable } from "./users-table";
import { useDirectory } from "./use-policy-api";
import { useCreateTeam, useDeleteTeam, useTeamMember, type OneTimePassword } from "./use-users-api";

const input = "rounded-md border border-slate-400 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900";

export function UsersAdmin({ currentUserId }: { currentUserId: string }) {
  const directory = useDirectory();
  const [question, setQuestion] = useState<Confirmation | null>(null);
  const [secret, setSecret] = useState<OneTimePassword | null>(null);
  const createTeam = useCreateTeam();
  const deleteTeam = useDeleteTeam();
  const member = useTeamMember();
  const [team, setTeam] = useState({ id: "", name: "" });
  const [adding, setAdding] = useState<Record<string, string>>({});
  if (directory.error)
    return (
      <p role="alert" className="text-rose-700">
        Could not load users: {directory.error.message}
      </p>
    );
  if (!directory.data) return <p role="status">Loading users…</p>;
  const { users, teams } = directory.data;
  const email = (id: string) => users.find((u) => u.id === id)?.email ?? id;
  const error = createTeam.error ?? deleteTeam.error ?? member.error;

  return (
    <div className="space-y-8">
      {error && (
        <p role="alert" className="rounded bg-rose-50 p-2 text-sm text-rose-800 dark:bg-rose-950 dark:text-rose-200">
          ✕ {error.message}
        </p>
      )}
      {secret ? <OneTimePasswordPanel secret={secret} onDone={() => setSecret(null)} /> : null}
      <UsersTable users={users} currentUserId={currentUserId} ask={setQuestion} onSecret={setSecret} />
      <NewUserForm ask={setQuestion} onCreated={setSecret} />
      <ConfirmDialog question={question} onClose={() => setQuestion(null)} />

      <section aria-labelledby="teams-heading" className="space-y-3">
        <h2 id="teams-heading" className="text-lg font-semibold">
          Teams
        </h2>
        <form
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            createTeam.mutate(team, { onSuccess: () => setTeam({ id: "", name: "" }) });
          }}
        >
          <label className="flex flex-col text-xs">
            Team id
            <input
              className={input}
              value={team.id}
              onChange={(e) => setTeam({ ...team, id: e.target.value })}
              placeholder="ops"
              required
            />
          </label>
          <label className="flex flex-col text-xs">
            Name
            <input
              className={input}
              value={team.name}
              onChange={(e) => setTeam({ ...team, name: e.target.value })}
              placeholder="Operations"
              required
            />
          </label>
          <button type="submit" className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white">
            Create team
          </button>
        </form>
        {teams.length === 0 && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            No teams yet. Create one, add members, then give it rules under <code>teams.&lt;id&gt;</code> in the policy.
          </p>
        )}
        <ul className="space-y-3">
          {teams.map((t) => (
            <li key={t.id} className="rounded-lg border border-slate-200 p-3 dark:border-slate-800">
              <div className="flex items-center justify-between gap-2">
                <h3 className="font-semibold">
                  <span className="font-mono">{t.id}</span> · {t.name}
                </h3>
                <button
                  type="button"
                  className="rounded border border-slate-300 px-2 py-0.5 text-xs dark:border-slate-700"
                  onClick={() =>
                    setQuestion({
                      title: `Delete team ${t.id}?`,
                      body: <p>Its members keep their accounts; rules and grants under this team stop applying.</p>,
                      confirmLabel: "Delete team",
                      danger: true,
                      onConfirm: () => deleteTeam.mutate(t.id),
                    })
                  }
                >
                  Delete team<span className="sr-only"> {t.id}</span>
                </button>
              </div>
              <ul className="mt-2 flex flex-wrap gap-2">
                {t.memberIds.map((id) => (
                  <li
                    key={id}
                    className="flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 text-xs dark:bg-slate-800"
                  >
                    {email(id)}
                    <button
                      type="button"
                      aria-label={`Remove ${email(id)} from ${t.id}`}
                      onClick={() => member.mutate({ teamId: t.id, userId: id, action: "remove" })}
                    >
                      ✕
                    </button>
                  </li>
                ))}
                {t.memberIds.length === 0 && (
                  <li className="text-xs text-slate-600 dark:text-slate-400">No members.</li>
                )}
              </ul>
              <div className="mt-2 flex items-end gap-2">
                <label className="flex flex-col text-xs">
                  Add member
                  <select
                    className={input}
                    value={adding[t.id] ?? ""}
                    onChange={(e) => setAdding({ ...adding, [t.id]: e.target.value })}
                  >
                    <option value="">choose a user</option>
                    {users
                      .filter((u) => !t.memberIds.includes(u.id))
                      .map((u) => (
                        <option key={u.id} value={u.id}>
                          {u.email}
                        </option>
                      ))}
                  </select>
                </label>
                <button
                  type="button"
                  disabled={!adding[t.id]}
                  className="rounded-md border border-slate-300 px-3 py-1 text-sm disabled:opacity-50 dark:border-slate-700"
                  onClick={() =>
                    member.mutate(
                      { teamId: t.id, userId: adding[t.id]!, action: "add" },
                      { onSuccess: () => setAdding({ ...adding, [t.id]: "" }) },
                    )
                  }
                >
                  Add
                </button>
              </div>
            </li>
          ))}
        </ul>
      </section>

      <ModeGrants users={users} teams={teams} />
    </div>
  );
}
