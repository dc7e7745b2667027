import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { enabledProviders } from "@/lib/auth/auth";
import { currentUserOrEnded } from "@/lib/auth/guards";
import { LoginForm } from "./login-form";
import { providerLoginAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; ended?: string; changed?: string }>;
}) {
  const current = await currentUserOrEnded();
  if (current.passwordMustChange) redirect("/change-password");
  if (current.user) redirect("/chat");
  const { next = "/chat", ended, changed } = await searchParams;
  const providers = enabledProviders();
  return (
    <main className="flex min-h-screen items-center justify-center p-4">
      <div className="w-full max-w-sm rounded-xl border border-slate-200 p-6 shadow-sm dark:border-slate-800">
        <h1 className="text-2xl font-semibold">Sign in to Toolgate</h1>
        <p className="mt-1 mb-6 text-sm text-slate-600 dark:text-slate-400">
          Chat with an agent whose every tool is governed by policy.
        </p>
        {changed ? (
          <p
            role="status"
            data-testid="password-changed"
            className="mb-4 rounded-md bg-emerald-50 p-2 text-sm text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50"
          >
            Your password was changed and every session was signed out. Sign in with your new password.
          </p>
        ) : ended ? (
          <p
            role="status"
            data-testid="session-ended"
            className="mb-4 rounded-md bg-amber-50 p-2 text-sm text-amber-950 dark:bg-amber-950 dark:text-amber-50"
          >
            You were signed out: your session ended (an admin changed your account, or it was ended elsewhere). Sign in
            again if you still may.
          </p>
        ) : null}
        <LoginForm next={next} />
        {providers.length > 0 ? (
          <div className="mt-6 space-y-2 border-t border-slate-200 pt-4 dark:border-slate-800">
            {providers.map((p) => (
              <form key={p.id} action={providerLoginAction}>
                <input type="hidden" name="provider" value={p.id} />
                <button
                  type="submit"
                  className="w-full rounded-md border border-slate-300 px-3 py-2 text-sm dark:border-slate-700"
                >
                  Continue with {p.name}
                </button>
              </form>
            ))}
          </div>
        ) : null}
      </div>
    </main>
  );
}
