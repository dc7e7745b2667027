"use client";
// Accessible tabs: arrow keys move between tabs, the panel is labelled by its tab.
import { useRef, type ReactNode } from "react";

export function Tabs<T extends string>({
  label,
  tabs,
  active,
  onChange,
  children,
}: {
  label: string;
  tabs: Array<{ id: T; title: string }>;
  active: T;
  onChange: (id: T) => void;
  children: ReactNode;
}) {
  const refs = useRef(new Map<T, HTMLButtonElement>());
  const move = (delta: number) => {
    const index = tabs.findIndex((t) => t.id === active);
    const next = tabs[(index + delta + tabs.length) % tabs.length];
    if (!next) return;
    onChange(next.id);
    refs.current.get(next.id)?.focus();
  };
  return (
    <div>
      <div
        role="tablist"
        aria-label={label}
        className="flex flex-wrap gap-1 border-b border-slate-200 dark:border-slate-800"
      >
        {tabs.map((tab) => (
          <button
            key={tab.id}
            ref={(el) => {
              if (el) refs.current.set(tab.id, el);
            }}
            type="button"
            role="tab"
            id={`tab-${tab.id}`}
            aria-selected={tab.id === active}
            aria-controls={`panel-${tab.id}`}
            tabIndex={tab.id === active ? 0 : -1}
            onClick={() => onChange(tab.id)}
            onKeyDown={(e) => {
              if (e.key === "ArrowRight") move(1);
              if (e.key === "ArrowLeft") move(-1);
            }}
            className={`-mb-px rounded-t-md border-b-2 px-3 py-1.5 text-sm ${tab.id === active ? "border-sky-600 font-semibold" : "border-transparent hover:bg-slate-100 dark:hover:bg-slate-800"}`}
          >
            {tab.title}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${active}`} aria-labelledby={`tab-${active}`} className="pt-3">
        {children}
      </div>
    </div>
  );
}
