import type { Metadata } from "next";
import { UsersAdmin } from "@/components/admin/users-admin";
import { requirePageUser } from "@/lib/auth/page-guards";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Users" };

export default async function AdminUsersPage() {
  const me = await requirePageUser("admin");
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">Users, teams and mode grants</h1>
      <UsersAdmin currentUserId={me.id} />
    </main>
  );
}
