"use client";
// Tools down (grouped), modes across, sticky headers. Each cell is a button: choosing it opens the side panel.
import type { CellFlip, MatrixCell, PolicyMatrix as Matrix } from "@/lib/admin/matrix";
import { CELL_LABELS } from "@/lib/admin/matrix";
import type { ToolMode } from "@/lib/policy";
import { CellIcon, cellClass } from "./cell-badge";

export type SelectedCell = { tool: string; mode: ToolMode };

function layerLabel(cell: MatrixCell): string {
  if (cell.execScope) return `exec: ${cell.execScope === "every" ? "every command" : "some commands"}`;
  if (cell.status === "denied") return cell.layer;
  if (cell.status === "ask") return "askRules";
  return "";
}

export function PolicyMatrix({
  matrix,
  flips,
  selected,
  onSelect,
}: {
  matrix: Matrix;
  flips: CellFlip[];
  selected?: SelectedCell;
  onSelect: (cell: SelectedCell) => void;
}) {
  const flipped = new Map(flips.map((f) => [`${f.tool}|${f.mode}`, f]));
  return (
    <div className="max-h-[70vh] overflow-auto rounded-lg border border-slate-200 dark:border-slate-800">
      <table className="w-full border-separate border-spacing-0 text-sm" aria-label="Effective tool policy per mode">
        <thead>
          <tr>
            <th
              scope="col"
              className="sticky left-0 top-0 z-20 border-b border-slate-200 bg-slate-50 px-3 py-2 text-left dark:border-slate-800 dark:bg-slate-900"
            >
              Tool
            </th>
            {matrix.columns.map((column) => (
              <th
                key={column.mode}
                scope="col"
                className="sticky top-0 z-10 border-b border-slate-200 bg-slate-50 px-3 py-2 text-left dark:border-slate-800 dark:bg-slate-900"
              >
                {column.mode}
                {!column.granted && (
                  <span className="block text-xs font-normal text-amber-700 dark:text-amber-300">
                    not granted: evaluated as {column.evaluatedAs}
                  </span>
                )}
              </th>
            ))}
          </tr>
        </thead>
        {matrix.groups.map((group) => (
          <tbody key={group.group}>
            <tr>
              <th
                colSpan={matrix.columns.length + 1}
                scope="rowgroup"
                className="bg-slate-100 px-3 py-1 text-left text-xs font-semibold uppercase tracking-wide text-slate-600 dark:bg-slate-800 dark:text-slate-300"
              >
                {group.group}
              </th>
            </tr>
            {group.rows.map((row) => (
              <tr key={row.name}>
                <th
                  scope="row"
                  className="sticky left-0 z-[5] border-b border-slate-100 bg-white px-3 py-1 text-left font-mono text-xs font-normal dark:border-slate-800 dark:bg-slate-950"
                >
                  {row.name}
                </th>
                {matrix.columns.map(({ mode }) => {
                  const cell = row.cells[mode];
                  const flip = flipped.get(`${row.name}|${mode}`);
                  const isSelected = selected?.tool === row.name && selected.mode === mode;
                  const label = `${row.name} in ${mode}: ${CELL_LABELS[cell.status]}${cell.status === "denied" ? ` by ${cell.layer}` : ""}${cell.execScope ? ` (${cell.execScope === "every" ? "every command" : "some commands"}, exec settings)` : ""}${flip ? ` (changed from ${CELL_LABELS[flip.from]})` : ""}`;
                  return (
                    <td key={mode} className="border-b border-slate-100 p-1 dark:border-slate-800">
                      <button
                        type="button"
                        aria-label={label}
                        aria-pressed={isSelected}
                        data-status={cell.status}
                        data-flipped={flip ? "true" : undefined}
                        onClick={() => onSelect({ tool: row.name, mode })}
                        className={`flex w-full items-center gap-1.5 rounded px-2 py-1 text-left text-xs ${cellClass(cell.status)} ${
                          flip ? "ring-2 ring-violet-500 ring-offset-1 dark:ring-offset-slate-950" : ""
                        } ${isSelected ? "outline outline-2 outline-sky-600" : ""} focus-visible:outline focus-visible:outline-2 focus-visible:outline-sky-600`}
                      >
                        <CellIcon status={cell.status} />
                        <span className="font-medium">{CELL_LABELS[cell.status]}</span>
                        <span className="hidden truncate opacity-75 sm:inline">{layerLabel(cell)}</span>
                        {flip && (
                          <span
                            aria-hidden="true"
                            className="ml-auto rounded bg-violet-600 px-1 text-[10px] font-semibold text-white"
                          >
                            changed
                          </span>
                        )}
                      </button>
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        ))}
      </table>
    </div>
  );
}
