"use client";
// Create an account: e-mail, optional name and roles (member always). Owner or admin asks first.
import { useState } from "react";
import type { Confirmation } from "./confirm-dialog";
import { useCreateUser, type OneTimePassword } from "./use-users-api";

const input = "rounded-md border border-slate-400 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900";
const EXTRA_ROLES = ["owner", "admin"] as const;

export function NewUserForm({
  ask,
  onCreated,
}: {
  ask: (q: Confirmation) => void;
  onCreated: (secret: OneTimePassword) => void;
}) {
  const create = useCreateUser();
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [roles, setRoles] = useState<string[]>([]);
  const submit = () =>
    create.mutate(
      { email, name, roles: ["member", ...roles] },
      {
        onSuccess: (r) => {
          onCreated({ email: r.user.email, temporaryPassword: r.temporaryPassword, reason: "created" });
          setEmail("");
          setName("");
          setRoles([]);
        },
      },
    );
  return (
    <section aria-labelledby="new-user-heading" className="space-y-2">
      <h2 id="new-user-heading" className="text-lg font-semibold">
        Add a user
      </h2>
      <form
        className="flex flex-wrap items-end gap-3"
        onSubmit={(e) => {
          e.preventDefault();
          if (roles.length === 0) return submit();
          ask({
            title: `Create ${email} with ${roles.join(" and ")}?`,
            body: (
              <p>
                {roles.includes("admin")
                  ? "Admins can change the policy, every user's roles and the audit settings."
                  : "Owners decide approval requests and grant allow-always rules."}
              </p>
            ),
            confirmLabel: `Create with ${roles.join(" and ")}`,
            onConfirm: submit,
          });
        }}
      >
        <label className="flex flex-col text-xs">
          E-mail
          <input
            className={input}
            type="email"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoComplete="off"
          />
        </label>
        <label className="flex flex-col text-xs">
          Name (optional)
          <input className={input} value={name} onChange={(e) => setName(e.target.value)} autoComplete="off" />
        </label>
        <fieldset className="flex items-center gap-3 text-sm">
          <legend className="sr-only">Roles besides member</legend>
          <span className="text-xs">member, plus:</span>
          {EXTRA_ROLES.map((r) => (
            <label key={r} className="inline-flex items-center gap-1">
              <input
                type="checkbox"
                checked={roles.includes(r)}
                onChange={(e) => setRoles(e.target.checked ? [...roles, r] : roles.filter((x) => x !== r))}
              />{" "}
              {r}
            </label>
          ))}
        </fieldset>
        <button
          type="submit"
          disabled={create.isPending}
          className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white"
        >
          Create user
        </button>
      </form>
      {create.error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-300">
          ✕ {create.error.message}
        </p>
      ) : null}
      <p className="text-xs text-slate-600 dark:text-slate-400">
        The new user gets a one-time password, shown to you once, to hand over; nothing is e-mailed.
      </p>
    </section>
  );
}
