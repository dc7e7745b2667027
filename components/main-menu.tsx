"use client";
// On a phone the main navigation folds behind a Menu button, so the header stays one row; from the sm breakpoint
// up the wrapper is `display: contents` and the navigation sits in the header as before. A navigation closes it.
// For an owner the button carries the pending-approvals count (the Approvals link's badge is hidden inside the
// closed menu), in its accessible name too: "Menu, 3 pending approvals".
import { useState, type ReactNode } from "react";
import { usePathname } from "next/navigation";
import { usePendingCount } from "@/components/approvals/use-approvals";

export function MainMenu({ children, pendingApprovals = false }: { children: ReactNode; pendingApprovals?: boolean }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [shownFor, setShownFor] = useState(pathname);
  // The same query as the Approvals link's badge (one request, one live subscription's refresh).
  const pending = usePendingCount(pendingApprovals);
  if (pathname !== shownFor) {
    setShownFor(pathname);
    setOpen(false);
  }
  return (
    <>
      <button
        type="button"
        className="inline-flex items-center rounded-md border border-slate-300 px-2 py-1 text-sm sm:hidden dark:border-slate-700"
        aria-expanded={open}
        aria-controls="main-menu"
        aria-label={pending ? `Menu, ${pending} pending approval${pending === "1" ? "" : "s"}` : undefined}
        onClick={() => setOpen(!open)}
      >
        Menu
        {pending && (
          <span
            aria-hidden="true"
            data-testid="menu-pending-count"
            className="ml-1 rounded-full bg-amber-700 px-1.5 text-xs font-semibold text-white"
          >
            {pending}
          </span>
        )}
      </button>
      <div
        id="main-menu"
        onKeyDown={(e) => {
          if (e.key === "Escape") setOpen(false);
        }}
        className={`${open ? "max-sm:block" : "max-sm:hidden"} max-sm:absolute max-sm:inset-x-0 max-sm:top-full max-sm:z-40 max-sm:border-b max-sm:border-slate-200 max-sm:bg-white max-sm:p-2 max-sm:shadow sm:contents dark:max-sm:border-slate-800 dark:max-sm:bg-slate-950`}
      >
        {children}
      </div>
    </>
  );
}
