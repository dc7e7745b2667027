"use client";
// The one-time password of a new account or a reset, shown to the admin once: it is not stored in clear and the
// server never shows it again. Dismissing it forgets it in this tab too.
import { useEffect, useRef } from "react";
import type { OneTimePassword } from "./use-users-api";

export function OneTimePasswordPanel({ secret, onDone }: { secret: OneTimePassword; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), [secret]);
  return (
    <section
      aria-labelledby="otp-heading"
      data-testid="one-time-password"
      className="max-w-2xl space-y-2 rounded-md border-2 border-amber-600 bg-amber-50 p-3 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
    >
      <h2 id="otp-heading" ref={heading} tabIndex={-1} className="font-semibold">
        {secret.reason === "created" ? `Account created for ${secret.email}` : `Password reset for ${secret.email}`}:
        one-time password
      </h2>
      <p>
        Hand this password to {secret.email} over a channel you trust. It is shown only now; they sign in with it and
        then change it
        {secret.reason === "reset" ? " (their other sessions have ended)" : ""}.
      </p>
      <output
        data-testid="one-time-password-value"
        className="block select-all rounded bg-white px-2 py-1 font-mono text-base text-slate-900 dark:bg-slate-900 dark:text-slate-100"
      >
        {secret.temporaryPassword}
      </output>
      <button
        type="button"
        onClick={onDone}
        className="rounded-md border border-amber-800 px-3 py-1 dark:border-amber-300"
      >
        Done, hide it
      </button>
    </section>
  );
}
