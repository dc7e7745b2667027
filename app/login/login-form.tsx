"use client";
import { useActionState, useEffect, useRef } from "react";
import { loginAction, type LoginState } from "./actions";

export function LoginForm({ next }: { next: string }) {
  const [state, action, pending] = useActionState<LoginState, FormData>(loginAction, {});
  const password = useRef<HTMLInputElement>(null);
  // After a failed attempt the e-mail is kept (state.email) and the cursor waits where the fix usually is.
  useEffect(() => {
    if (state.error) password.current?.focus();
  }, [state]);
  return (
    <form action={action} className="space-y-4" aria-describedby={state.error ? "login-error" : undefined}>
      <input type="hidden" name="next" value={next} />
      <label className="block">
        <span className="text-sm font-medium">E-mail</span>
        <input
          name="email"
          type="email"
          autoComplete="username"
          defaultValue={state.email}
          autoFocus
          required
          className="mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      <label className="block">
        <span className="text-sm font-medium">Password</span>
        <input
          name="password"
          type="password"
          autoComplete="current-password"
          ref={password}
          required
          className="mt-1 w-full rounded-md border border-slate-300 bg-white px-3 py-2 dark:border-slate-700 dark:bg-slate-900"
        />
      </label>
      {state.error ? (
        <p
          id="login-error"
          role="alert"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800 dark:bg-red-950 dark:text-red-200"
        >
          {state.error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={pending}
        className="w-full rounded-md bg-sky-700 px-3 py-2 font-medium text-white hover:bg-sky-800 disabled:opacity-60"
      >
        {pending ? "Signing in…" : "Sign in"}
      </button>
    </form>
  );
}
