import type { ReactNode } from "react";
import Link from "next/link";
import { redirect } from "next/navigation";
import { getCurrentUser, hasRole } from "@/lib/auth/guards";

export const dynamic = "force-dynamic";

const SECTIONS = [
  { href: "/admin/policy", label: "Policy" },
  { href: "/admin/audit", label: "Audit" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/mcp", label: "MCP servers" },
];

export default async function AdminLayout({ children }: { children: ReactNode }) {
  const user = await getCurrentUser();
  if (!user || !hasRole(user, "admin")) redirect("/chat");
  return (
    <>
      <nav aria-label="Admin sections" className="flex gap-3 border-b border-slate-200 px-4 py-1.5 text-sm dark:border-slate-800 sm:px-6">
        {SECTIONS.map((s) => (
          <Link key={s.href} href={s.href} className="text-sky-700 underline-offset-2 hover:underline dark:text-sky-400">{s.label}</Link>
        ))}
      </nav>
      {children}
    </>
  );
}
