import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { AdminNav } from "@/components/admin/admin-nav";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";

export const dynamic = "force-dynamic";

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const user = await getCurrentUser();
  // Said, not silent: the chat page shows why (components/redirect-notice.tsx).
  if (!user || !hasRole(user, "admin")) redirect("/chat?notice=admin-only");
  return (
    <>
      <AdminNav />
      {children}
    </>
  );
}
