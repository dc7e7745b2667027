"use client";
// On a phone the main navigation folds behind a Menu button, so the header stays one row; from the sm breakpoint
// up the wrapper is `display: contents` and the navigation sits in the header as before. A navigation closes it.
import { useState, type ReactNode } from "react";
import { usePathname } from "next/navigation";

export function MainMenu({ children }: { children: ReactNode }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const [shownFor, setShownFor] = useState(pathname);
  if (pathname !== shownFor) {
    setShownFor(pathname);
    setOpen(false);
  }
  return (
    <>
      <button
        type="button"
        className="rounded-md border border-slate-300 px-2 py-1 text-sm sm:hidden dark:border-slate-700"
        aria-expanded={open}
        aria-controls="main-menu"
        onClick={() => setOpen(!open)}
      >
        Menu
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
