"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { usePendingCount } from "@/components/approvals/use-approvals";

export type NavItem = { href: string; label: string; badge?: "approvals" };

function PendingBadge() {
  const count = usePendingCount(true);
  if (count === null) return null;
  return (
    <span
      data-testid="nav-pending-count"
      className="ml-1 rounded-full bg-amber-700 px-1.5 text-xs font-semibold text-white"
    >
      {count}
      <span className="sr-only"> pending</span>
    </span>
  );
}

export function AppNav({ items }: { items: NavItem[] }) {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex flex-wrap gap-1">
      {items.map((item) => {
        const active = pathname === item.href || pathname.startsWith(`${item.href}/`);
        return (
          <Link
            key={item.href}
            href={item.href}
            aria-current={active ? "page" : undefined}
            className={`inline-flex items-center whitespace-nowrap rounded-md px-3 py-1.5 text-sm font-medium ${
              active
                ? "bg-slate-900 text-white dark:bg-slate-100 dark:text-slate-900"
                : "hover:bg-slate-100 dark:hover:bg-slate-800"
            }`}
          >
            {item.label}
            {item.badge === "approvals" ? <PendingBadge /> : null}
          </Link>
        );
      })}
    </nav>
  );
}
