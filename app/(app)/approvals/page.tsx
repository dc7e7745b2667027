import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "owner")) redirect("/chat");
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Approvals</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">No pending requests. Calls that need an owner&apos;s decision will appear here.</p>
    </main>
  );
}
