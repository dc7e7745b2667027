import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { ApprovalsInbox } from "@/components/approvals/approvals-inbox";
import { NotificationToggle } from "@/components/approvals/pending-attention";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Inbox" };

export default async function ApprovalsPage({ searchParams }: { searchParams: Promise<{ open?: string | string[] }> }) {
  const { open } = await searchParams;
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "owner")) redirect("/chat?notice=owner-only");
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">
        Approvals <NotificationToggle />
      </h1>
      <ApprovalsInbox openId={typeof open === "string" ? open : undefined} />
    </main>
  );
}
