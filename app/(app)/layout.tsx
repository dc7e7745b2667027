import { Suspense, type ReactNode } from "react";
import { cookies, headers } from "next/headers";
import { redirect } from "next/navigation";
import { AccountLive } from "@/components/account-live";
import { AppNav, type NavItem } from "@/components/app-nav";
import { MainMenu } from "@/components/main-menu";
import { ThemeToggle } from "@/components/theme-toggle";
import { THEME_COOKIE, themeFromCookie } from "@/lib/theme";
import { LiveEvents } from "@/components/live-events";
import { PendingAttention } from "@/components/approvals/pending-attention";
import { loadConfig } from "@/lib/config";
import { RedirectNotice } from "@/components/redirect-notice";
import { currentUserOrEnded, hasRole } from "@/lib/auth/guards";
import { logoutAction } from "@/app/login/actions";

export const dynamic = "force-dynamic";

export default async function AppLayout({ children }: { children: ReactNode }) {
  const { user, ended, passwordMustChange } = await currentUserOrEnded();
  // An admin-issued password in use: nothing of the app until the person chooses their own (the APIs refuse too).
  if (passwordMustChange) redirect("/change-password");
  if (!user) {
    const wanted = (await headers()).get("x-toolgate-path");
    const params = new URLSearchParams({
      ...(wanted && wanted !== "/chat" ? { next: wanted } : {}),
      ...(ended ? { ended: "1" } : {}),
    });
    redirect(params.size ? `/login?${params}` : "/login");
  }
  const items: NavItem[] = [{ href: "/chat", label: "Chat" }];
  if (hasRole(user, "owner"))
    items.push({ href: "/approvals", label: "Approvals", badge: "approvals" }, { href: "/grants", label: "Grants" });
  if (hasRole(user, "admin")) items.push({ href: "/admin", label: "Admin" });
  items.push({ href: "/settings", label: "Settings" });
  const theme = themeFromCookie((await cookies()).get(THEME_COOKIE)?.value);
  return (
    // The shell fills the viewport; pages scroll inside it (the chat keeps its composer in view).
    <LiveEvents>
      <div className="flex h-dvh flex-col">
        <AccountLive />
        {hasRole(user, "owner") ? (
          <PendingAttention userId={user.id} selfDecision={loadConfig().APPROVALS_SELF_DECISION} />
        ) : null}
        {/* One row at every width: on a phone the navigation folds behind Menu and the account is named for screen readers only. */}
        <header className="relative flex items-center justify-between gap-x-2 border-b border-slate-200 px-4 py-2 sm:flex-wrap sm:gap-x-4 sm:gap-y-1 dark:border-slate-800">
          <div className="flex items-center gap-2 sm:gap-4">
            <span className="font-semibold tracking-tight">Toolgate</span>
            <MainMenu pendingApprovals={hasRole(user, "owner")}>
              <AppNav items={items} />
            </MainMenu>
          </div>
          <div className="flex items-center gap-2 text-sm sm:gap-3">
            <span data-testid="current-user" className="text-slate-600 dark:text-slate-400">
              {/* On a phone: the account's initial, the address and roles for screen readers (one row). */}
              <span
                aria-hidden="true"
                title={user.email}
                className="inline-flex h-6 w-6 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold uppercase text-slate-800 sm:hidden dark:bg-slate-700 dark:text-slate-100"
              >
                {user.email.slice(0, 1)}
              </span>
              <span className="max-sm:sr-only">{user.email}</span> <span className="sr-only">roles:</span>
              <span className="ml-1 rounded bg-slate-100 px-1.5 py-0.5 text-xs max-sm:sr-only dark:bg-slate-800">
                {user.roles.join(", ")}
              </span>
            </span>
            <ThemeToggle initial={theme} />
            <form action={logoutAction}>
              <button
                type="submit"
                className="whitespace-nowrap rounded-md border border-slate-300 px-2 py-1 dark:border-slate-700"
              >
                Sign out
              </button>
            </form>
          </div>
        </header>
        <Suspense fallback={null}>
          <RedirectNotice />
        </Suspense>
        <div className="flex min-h-0 flex-1 flex-col overflow-y-auto">{children}</div>
      </div>
    </LiveEvents>
  );
}
