import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { AccessTokens } from "@/components/settings/access-tokens";
import { ConnectedApps } from "@/components/settings/connected-apps";
import { ChangePassword } from "@/components/settings/change-password";
import { Devices } from "@/components/settings/devices";
import { listUsableAgents } from "@/lib/runs/agents";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Settings" };

/** A member's own settings: password, signed-in devices, access tokens and OAuth-connected apps for outside MCP clients. */
export default async function SettingsPage() {
  const user = await getCurrentUser();
  if (!user) redirect("/login");
  // A token may be bound only to an agent this user may use (the server refuses any other): offer just those.
  const agents = (await listUsableAgents({ user }).catch(() => [])).map(({ id, name }) => ({ id, name }));
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">Settings</h1>
      <div className="space-y-8 p-4">
        <section aria-labelledby="password" className="space-y-3">
          <h2 id="password" className="text-base font-semibold">
            Password
          </h2>
          <ChangePassword email={user.email} />
        </section>
        <Devices />
        <AccessTokens isAdmin={hasRole(user, "admin")} agents={agents} />
        <ConnectedApps />
      </div>
    </main>
  );
}
