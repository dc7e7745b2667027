import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { currentUserOrEnded } from "@/lib/auth/guards";
import { ChangePassword } from "@/components/settings/change-password";
import { logoutAction } from "@/app/login/actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Choose your password" };

/**
 * Where every page sends a person signed in with a password an admin issued (new account or reset): they choose
 * their own before anything else. Outside the app's shell on purpose: no nav, no live streams (the APIs refuse them).
 */
export default async function ChangePasswordPage() {
  const { user, ended, passwordMustChange } = await currentUserOrEnded();
  if (!user) redirect(ended ? "/login?ended=1" : "/login");
  if (!passwordMustChange) redirect("/settings");
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 p-6 shadow-sm dark:border-slate-800">
        <h1 className="text-2xl font-semibold">Choose your password</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
          You signed in as <span className="font-medium text-slate-900 dark:text-slate-100">{user.email}</span> with a
          one-time password from an admin or a recovery code. Choose your own to go on; you then sign in with it.
        </p>
        <ChangePassword email={user.email} forced />
        <form action={logoutAction} className="mt-6 border-t border-slate-200 pt-4 dark:border-slate-800">
          <button type="submit" className="rounded-md border border-slate-300 px-2 py-1 text-sm dark:border-slate-700">
            Sign out
          </button>
        </form>
      </div>
    </main>
  );
}
