"use client";
// The admin sections, with the current one marked for sight (style) and for assistive technology (aria-current).
import Link from "next/link";
import { usePathname } from "next/navigation";

const SECTIONS = [
  { href: "/admin/policy", label: "Policy" },
  { href: "/admin/audit", label: "Audit" },
  { href: "/admin/users", label: "Users" },
  { href: "/admin/mcp", label: "MCP servers" },
  { href: "/admin/notifications", label: "Notifications" },
];

export function AdminNav() {
  const pathname = usePathname();
  return (
    <nav
      aria-label="Admin sections"
      className="flex shrink-0 gap-1 overflow-x-auto border-b border-slate-200 px-4 py-1.5 text-sm dark:border-slate-800 sm:px-6"
    >
      {SECTIONS.map((s) => {
        const current = pathname === s.href || pathname.startsWith(`${s.href}/`);
        return (
          <Link
            key={s.href}
            href={s.href}
            aria-current={current ? "page" : undefined}
            className={`whitespace-nowrap rounded px-2 py-0.5 underline-offset-2 ${
              current
                ? "bg-sky-100 font-semibold text-sky-950 dark:bg-sky-900 dark:text-sky-50"
                : "text-sky-800 hover:underline dark:text-sky-300"
            }`}
          >
            {s.label}
          </Link>
        );
      })}
    </nav>
  );
}
