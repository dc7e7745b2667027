import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";

export const dynamic = "force-dynamic";

export default async function ApprovalsPage() {
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "owner")) redirect("/chat?notice=owner-only");
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">Approvals</h1>
      <ApprovalsInbox />
    </main>
  );
}
