import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { AccessTokens } from "@/components/settings/access-tokens";

export const dynamic = "force-dynamic";

/** A member's own settings: access tokens for outside MCP clients. */
export default async function SettingsPage() {
  const user = await getCurrentUser();
  if (!user) redirect("/login");
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">Settings</h1>
      <div className="p-4">
        <AccessTokens isAdmin={hasRole(user, "admin")} />
      </div>
    </main>
  );
}
