// A decision shown with an icon AND a colour AND a word, never colour alone.
import type { CellStatus } from "@/lib/admin/matrix";
import { CELL_LABELS } from "@/lib/admin/matrix";
import { PauseIcon } from "@/components/icons";

/** ✓ and ✕ are in every Linux font; ⏸ needs an emoji font (an empty box without one), so "ask" is drawn. */
export function CellIcon({ status }: { status: CellStatus }) {
  if (status === "ask") return <PauseIcon className="inline h-3 w-3" />;
  return <span aria-hidden="true">{status === "allowed" ? "✓" : "✕"}</span>;
}

const STYLES: Record<CellStatus, { className: string }> = {
  allowed: { className: "bg-emerald-50 text-emerald-800 dark:bg-emerald-950 dark:text-emerald-200" },
  denied: { className: "bg-rose-50 text-rose-800 dark:bg-rose-950 dark:text-rose-200" },
  ask: { className: "bg-amber-50 text-amber-900 dark:bg-amber-950 dark:text-amber-200" },
};

export function cellClass(status: CellStatus): string {
  return STYLES[status].className;
}

export function CellBadge({ status, compact = false }: { status: CellStatus; compact?: boolean }) {
  const style = STYLES[status];
  return (
    <span className={`inline-flex items-center gap-1 rounded px-1.5 py-0.5 text-xs font-medium ${style.className}`}>
      <CellIcon status={status} />
      {compact ? <span className="sr-only sm:not-sr-only">{CELL_LABELS[status]}</span> : CELL_LABELS[status]}
    </span>
  );
}
