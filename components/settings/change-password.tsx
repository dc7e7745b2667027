"use client";
// Change password (Settings, and /change-password when an admin-issued one must be replaced). The same rules as the
// server (POST /api/me/password) are checked first so mistakes show by the field at once; the server still decides.
// A new password signs out every session, this one included: on success the browser goes to the sign-in page.
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { expectOwnSignOut } from "@/components/own-sign-out";

const input =
  "w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm aria-[invalid=true]:border-red-600 dark:border-slate-700 dark:bg-slate-900 dark:aria-[invalid=true]:border-red-500";
const MIN_LENGTH = 8;

type Field = "currentPassword" | "newPassword" | "confirmPassword";
type Errors = Partial<Record<Field | "form", string>>;

function check(values: Record<Field, string>): Errors {
  const errors: Errors = {};
  if (!values.currentPassword) errors.currentPassword = "Enter your current password.";
  if (values.newPassword.length < MIN_LENGTH) errors.newPassword = `Use at least ${MIN_LENGTH} characters.`;
  else if (values.newPassword.length > 1024) errors.newPassword = "Use at most 1024 characters.";
  else if (values.newPassword === values.currentPassword)
    errors.newPassword = "Choose a password different from the current one.";
  if (!errors.newPassword && values.confirmPassword !== values.newPassword)
    errors.confirmPassword = "The two new passwords do not match.";
  return errors;
}

/** The server's refusal, put by the field it concerns. */
async function serverErrors(res: Response): Promise<Errors> {
  const body = (await res.json().catch(() => null)) as { error?: { code?: string; message?: string } } | null;
  const message = body?.error?.message ?? `The password was not changed (error ${res.status}).`;
  if (res.status === 403 && body?.error?.code === "FORBIDDEN")
    return { currentPassword: "The current password is wrong." };
  if (res.status === 429) return { form: "Too many attempts. Wait a few minutes and try again." };
  if (res.status === 401) return { form: "Your session has ended. Sign in again." };
  if (res.status === 422) return { newPassword: message };
  return { form: message };
}

/** A password input whose name is only its label; the hint and the error are its description. */
function PasswordField({
  id,
  name,
  label,
  autoComplete,
  error,
  hint,
}: {
  id: string;
  name: Field;
  label: string;
  autoComplete: string;
  error?: string;
  hint?: string;
}) {
  const inputId = `${id}-${name}`;
  const describedBy = [hint ? `${inputId}-hint` : null, error ? `${inputId}-error` : null].filter(Boolean).join(" ");
  return (
    <div className="text-sm">
      <label htmlFor={inputId} className="mb-1 block font-medium">
        {label}
      </label>
      <input
        id={inputId}
        name={name}
        type="password"
        autoComplete={autoComplete}
        maxLength={1024}
        className={input}
        aria-invalid={error ? true : undefined}
        aria-describedby={describedBy || undefined}
      />
      {hint ? (
        <p id={`${inputId}-hint`} className="mt-1 text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${inputId}-error`} className="mt-1 text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function ChangePassword({ email, forced = false }: { email: string; forced?: boolean }) {
  const id = useId();
  const router = useRouter();
  const [errors, setErrors] = useState<Errors>({});
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget; // kept: React clears currentTarget once the handler returns
    const show = (found: Errors) => {
      setErrors(found);
      // The first field with a problem takes the focus, so its message is read out with it.
      const first = (["currentPassword", "newPassword", "confirmPassword"] as const).find((f) => found[f]);
      if (first) formElement.querySelector<HTMLInputElement>(`[name="${first}"]`)?.focus();
    };
    const form = new FormData(formElement);
    const values = {
      currentPassword: String(form.get("currentPassword") ?? ""),
      newPassword: String(form.get("newPassword") ?? ""),
      confirmPassword: String(form.get("confirmPassword") ?? ""),
    };
    const found = check(values);
    show(found);
    if (Object.keys(found).length > 0) return;
    setPending(true);
    expectOwnSignOut("/login?changed=1");
    try {
      const res = await fetch("/api/me/password", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ currentPassword: values.currentPassword, newPassword: values.newPassword }),
      });
      if (!res.ok) {
        expectOwnSignOut(null);
        show(await serverErrors(res));
        return;
      }
      setDone(true);
      // Every session ended with the change (this one too): on to the sign-in page, which says so.
      router.replace("/login?changed=1");
    } catch {
      expectOwnSignOut(null);
      setErrors({ form: "The server could not be reached. Check the connection and try again." });
    } finally {
      setPending(false);
    }
  }

  return (
    <form noValidate onSubmit={(e) => void submit(e)} aria-label="Change password" className="max-w-sm space-y-3">
      {/* For password managers: which account the new password belongs to. */}
      <input type="email" name="username" autoComplete="username" value={email} readOnly hidden />
      <PasswordField
        id={id}
        name="currentPassword"
        label={forced ? "One-time password" : "Current password"}
        autoComplete="current-password"
        error={errors.currentPassword}
        hint={forced ? "The one you signed in with; after a recovery code, another of your unused codes." : undefined}
      />
      <PasswordField
        id={id}
        name="newPassword"
        label="New password"
        autoComplete="new-password"
        error={errors.newPassword}
        hint={`At least ${MIN_LENGTH} characters.`}
      />
      <PasswordField
        id={id}
        name="confirmPassword"
        label="Confirm new password"
        autoComplete="new-password"
        error={errors.confirmPassword}
      />
      {errors.form ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {errors.form}
        </p>
      ) : null}
      {done ? (
        <p role="status" className="text-sm text-emerald-800 dark:text-emerald-300">
          Password changed. Signing you out everywhere…
        </p>
      ) : null}
      <button
        type="submit"
        disabled={pending || done}
        className="rounded-md bg-slate-900 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-60 dark:bg-slate-100 dark:text-slate-900"
      >
        {pending ? "Changing…" : "Change password"}
      </button>
      {forced ? null : (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Changing it signs you out everywhere, here too: sign in again with the new password.
        </p>
      )}
    </form>
  );
}
