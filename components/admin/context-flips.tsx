"use client";
// A list of contexts and the cells a change flips in each: the import preview and the draft's "also changes".
import { CELL_LABELS } from "@/lib/admin/matrix";
import { leftOutNote, type LeftOut } from "@/lib/admin/matrix-contexts";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import type { ContextFlips } from "./use-context-flips";

export function ContextFlipList({
  rows,
  testId,
  hideUnchanged = false,
  onPick,
}: {
  rows: ContextFlips[];
  testId: string;
  hideUnchanged?: boolean;
  onPick?: (context: MatrixContextInput) => void;
}) {
  const shown = hideUnchanged ? rows.filter((r) => r.error || (r.flips?.length ?? 0) > 0) : rows;
  if (shown.length === 0) return null;
  return (
    <ul className="space-y-1 text-sm" data-testid={testId}>
      {shown.map(({ label, context, flips, error }) => (
        <li key={label}>
          {onPick && (flips?.length ?? 0) > 0 && (
            <button
              type="button"
              className="mr-2 rounded border border-slate-300 px-1.5 text-xs dark:border-slate-700"
              aria-label={`Show ${label} in the matrix`}
              onClick={() => onPick(context)}
            >
              Show
            </button>
          )}
          <span className="font-medium">{label}</span>:{" "}
          {error ? (
            <span className="text-rose-700 dark:text-rose-300">✕ {error}</span>
          ) : !flips ? (
            "computing…"
          ) : flips.length === 0 ? (
            "no cell changes"
          ) : (
            <>
              {flips.length} cell{flips.length === 1 ? "" : "s"} change{flips.length === 1 ? "s" : ""}
              <span className="text-xs">
                {" "}
                —{" "}
                {flips
                  .slice(0, 12)
                  .map((f) => `${f.tool} in ${f.mode}: ${CELL_LABELS[f.from]} → ${CELL_LABELS[f.to]}`)
                  .join("; ")}
                {flips.length > 12 ? "; …" : ""}
              </span>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

/** What a capped preview did not compare, named, so a change past the cap is not taken for "no change". */
export function LeftOutNote({ leftOut, testId }: { leftOut: LeftOut | undefined; testId: string }) {
  const note = leftOut && leftOutNote(leftOut);
  if (!note) return null;
  return (
    <p className="text-xs text-slate-600 dark:text-slate-400" data-testid={testId}>
      {note}. Pick one in the matrix&apos;s context to see its cells.
    </p>
  );
}
