"use client";
// The side panel of a chosen cell: the deciding layer, the rule, the source and the whole chain of layers.
import { LAYER_LABELS, type LayerId } from "@/lib/policy";
import type { CellFlip, MatrixCell } from "@/lib/admin/matrix";
import { CELL_LABELS } from "@/lib/admin/matrix";
import { CellBadge } from "./cell-badge";
import type { SelectedCell } from "./policy-matrix";

const OUTCOME_STYLE = {
  kept: "text-emerald-700 dark:text-emerald-300",
  removed: "font-semibold text-rose-700 dark:text-rose-300",
  skipped: "text-slate-500 dark:text-slate-400",
} as const;

function layerName(layer: string): string {
  if (layer === "exec") return "exec settings (security, ask)";
  return LAYER_LABELS[layer as LayerId] ?? layer;
}

export function CellPanel({
  selected,
  cell,
  flip,
  onClose,
}: {
  selected?: SelectedCell;
  cell?: MatrixCell;
  flip?: CellFlip;
  onClose: () => void;
}) {
  if (!selected || !cell) {
    return (
      <aside
        aria-label="Decision details"
        className="rounded-lg border border-dashed border-slate-300 p-4 text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400"
      >
        Choose a cell of the matrix to see which layer decided it, the rule, where the rule lives and the whole chain.
      </aside>
    );
  }
  return (
    <aside
      aria-label="Decision details"
      aria-live="polite"
      className="space-y-3 rounded-lg border border-slate-200 p-4 text-sm dark:border-slate-800"
    >
      <div className="flex items-start justify-between gap-2">
        <h2 className="font-semibold">
          <span className="font-mono">{selected.tool}</span> in {selected.mode}
        </h2>
        <button
          type="button"
          onClick={onClose}
          className="rounded px-2 text-slate-500 hover:bg-slate-100 dark:hover:bg-slate-800"
          aria-label="Close details"
        >
          ✕
        </button>
      </div>
      <CellBadge status={cell.status} />
      {flip && (
        <p className="rounded bg-violet-50 p-2 text-violet-900 dark:bg-violet-950 dark:text-violet-200">
          The draft changes this cell from {CELL_LABELS[flip.from]} to {CELL_LABELS[flip.to]}.
        </p>
      )}
      <dl className="grid grid-cols-[7rem_1fr] gap-x-2 gap-y-1">
        <dt className="text-slate-500">Deciding layer</dt>
        <dd data-testid="cell-layer">
          {cell.layer === "allowed" ? "none (allowed)" : `${cell.layer} — ${layerName(cell.layer)}`}
        </dd>
        <dt className="text-slate-500">Rule</dt>
        <dd className="font-mono text-xs">{cell.rule ?? "—"}</dd>
        <dt className="text-slate-500">Source</dt>
        <dd className="font-mono text-xs">{cell.source ?? "—"}</dd>
        {cell.errorCode && (
          <>
            <dt className="text-slate-500">Error code</dt>
            <dd className="font-mono text-xs">{cell.errorCode}</dd>
          </>
        )}
      </dl>
      <p data-testid="cell-reason">{cell.reason}</p>
      <div>
        <h3 className="mb-1 font-semibold">Chain</h3>
        <ol className="space-y-0.5">
          {cell.chain.map((entry) => (
            <li key={entry.layer} className="flex gap-2 text-xs">
              <span className="w-28 shrink-0 font-mono">{entry.layer}</span>
              <span className={OUTCOME_STYLE[entry.outcome]}>
                {entry.outcome}
                {entry.rule ? `: ${entry.rule}` : ""}
                {entry.source ? ` (${entry.source})` : ""}
              </span>
            </li>
          ))}
        </ol>
      </div>
    </aside>
  );
}
