"use client";
// Roles per user, their status, password reset and deactivation. Granting owner or admin and deactivating ask
// first (a confirmation dialog); taking a role away or reactivating act at once.
import { ROLES } from "@/lib/policy";
import type { Confirmation } from "./confirm-dialog";
import type { AdminUser } from "./types";
import { useResetPassword, useRoleChange, useSetActive, type OneTimePassword } from "./use-users-api";

const WHAT_ROLE_GIVES: Record<string, string> = {
  owner: "Owners decide approval requests (allow once, allow always) and review other people's sessions.",
  admin: "Admins change the tool policy, every user's roles and accounts, and read the whole audit log.",
};

export function UsersTable({
  users,
  currentUserId,
  ask,
  onSecret,
}: {
  users: AdminUser[];
  currentUserId: string;
  ask: (q: Confirmation) => void;
  onSecret: (s: OneTimePassword) => void;
}) {
  const roleChange = useRoleChange();
  const reset = useResetPassword();
  const setActive = useSetActive();
  const error = roleChange.error ?? reset.error ?? setActive.error;
  const busy = roleChange.isPending || reset.isPending || setActive.isPending;
  const changeRole = (u: AdminUser, role: string, add: boolean) => {
    const run = () => roleChange.mutate({ userId: u.id, role, action: add ? "add" : "remove" });
    if (!add || role === "member") return run();
    ask({
      title: `Make ${u.email} ${role}?`,
      body: <p>{WHAT_ROLE_GIVES[role]}</p>,
      confirmLabel: `Grant ${role}`,
      onConfirm: run,
    });
  };
  return (
    <section aria-labelledby="roles-heading" className="space-y-2">
      <h2 id="roles-heading" className="text-lg font-semibold">
        Users and roles
      </h2>
      {error ? (
        <p role="alert" className="rounded bg-rose-50 p-2 text-sm text-rose-800 dark:bg-rose-950 dark:text-rose-200">
          ✕ {error.message}
        </p>
      ) : null}
      <div className="overflow-x-auto">
        <table className="w-full max-w-5xl text-left text-sm">
          <thead>
            <tr className="border-b border-slate-200 dark:border-slate-800">
              <th scope="col" className="py-2">
                E-mail
              </th>
              {ROLES.map((r) => (
                <th key={r} scope="col" className="px-3">
                  {r}
                </th>
              ))}
              <th scope="col" className="px-3">
                Teams
              </th>
              <th scope="col" className="px-3">
                Status
              </th>
              <th scope="col" className="px-3">
                Account
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => {
              const self = u.id === currentUserId;
              return (
                <tr
                  key={u.id}
                  data-testid="user-row"
                  data-email={u.email}
                  className="border-b border-slate-100 dark:border-slate-900"
                >
                  <td className="py-2">
                    {u.email}
                    {self ? <span className="ml-1 text-xs text-slate-600 dark:text-slate-400">(you)</span> : null}
                  </td>
                  {ROLES.map((role) => {
                    const has = u.roles.includes(role);
                    const locked = self && role === "admin" && has;
                    return (
                      <td key={role} className="px-3">
                        <input
                          type="checkbox"
                          aria-label={`${u.email} has role ${role}`}
                          checked={has}
                          disabled={locked || busy}
                          title={locked ? "You cannot remove your own admin role" : undefined}
                          onChange={(e) => changeRole(u, role, e.target.checked)}
                        />
                      </td>
                    );
                  })}
                  <td className="px-3 text-xs">{u.teamIds.join(", ") || "—"}</td>
                  <td className="px-3 text-xs" data-testid="user-status">
                    {u.active ? (
                      "active"
                    ) : (
                      <span className="rounded bg-slate-200 px-1.5 py-0.5 font-semibold text-slate-900 dark:bg-slate-700 dark:text-slate-50">
                        deactivated
                      </span>
                    )}
                  </td>
                  <td className="space-x-2 whitespace-nowrap px-3 py-1">
                    {self ? (
                      <span className="text-xs text-slate-600 dark:text-slate-400">
                        change your password under your account
                      </span>
                    ) : (
                      <>
                        <button
                          type="button"
                          disabled={busy}
                          className="rounded border border-slate-400 px-2 py-0.5 text-xs dark:border-slate-600"
                          onClick={() =>
                            ask({
                              title: `Reset the password of ${u.email}?`,
                              body: (
                                <p>
                                  They get a new one-time password, shown to you once, and every session they have open
                                  ends now.
                                </p>
                              ),
                              confirmLabel: "Reset password",
                              onConfirm: () =>
                                reset.mutate(u.id, {
                                  onSuccess: (r) =>
                                    onSecret({
                                      email: u.email,
                                      temporaryPassword: r.temporaryPassword,
                                      reason: "reset",
                                    }),
                                }),
                            })
                          }
                        >
                          Reset password<span className="sr-only"> of {u.email}</span>
                        </button>
                        {u.active ? (
                          <button
                            type="button"
                            disabled={busy}
                            className="rounded border border-red-700 px-2 py-0.5 text-xs text-red-800 dark:border-red-400 dark:text-red-300"
                            onClick={() =>
                              ask({
                                title: `Deactivate ${u.email}?`,
                                body: (
                                  <p>
                                    Their open pages are signed out now and they cannot sign in until an admin
                                    reactivates them. Their data stays.
                                  </p>
                                ),
                                confirmLabel: "Deactivate",
                                danger: true,
                                onConfirm: () => setActive.mutate({ userId: u.id, active: false }),
                              })
                            }
                          >
                            Deactivate<span className="sr-only"> {u.email}</span>
                          </button>
                        ) : (
                          <button
                            type="button"
                            disabled={busy}
                            className="rounded border border-slate-400 px-2 py-0.5 text-xs dark:border-slate-600"
                            onClick={() => setActive.mutate({ userId: u.id, active: true })}
                          >
                            Reactivate<span className="sr-only"> {u.email}</span>
                          </button>
                        )}
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        A change reaches the person&apos;s open pages at once. Taking a role away, a password reset and deactivation
        also end their sessions. Your own admin role and account cannot be changed here.
      </p>
    </section>
  );
}
