import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";
import { GrantsTable } from "@/components/grants/grants-table";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Grants" };

export default async function GrantsPage() {
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "owner")) redirect("/chat?notice=owner-only");
  return (
    <main className="flex flex-1 flex-col">
      <h1 className="border-b border-slate-200 px-4 py-2 text-lg font-semibold dark:border-slate-800">
        Allow-always grants
      </h1>
      <GrantsTable />
    </main>
  );
}
