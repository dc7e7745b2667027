"use client";
// What the draft changes in the matrix, next to the forms (the matrix itself may be scrolled out of view): each
// flipped cell of the current context, from and to, before anything is saved.
import type { CellFlip } from "@/lib/admin/matrix";
import { CellBadge } from "./cell-badge";

export function DraftEffect({
  dirty,
  flips,
  updating,
}: {
  dirty: boolean;
  flips: readonly CellFlip[];
  updating: boolean;
}) {
  return (
    <div
      className="rounded-lg border border-sky-200 bg-sky-50 p-2 text-xs dark:border-sky-900 dark:bg-sky-950"
      role="status"
      aria-live="polite"
      data-testid="draft-effect"
    >
      <p className="font-semibold">
        {!dirty
          ? "No unsaved changes."
          : flips.length === 0
            ? "Effect on the matrix: no cell changes in this context."
            : `Effect on the matrix: ${flips.length} cell${flips.length === 1 ? "" : "s"} change${flips.length === 1 ? "s" : ""} in this context.`}
        {updating && " Updating…"}
      </p>
      {dirty && flips.length > 0 && (
        <ul className="mt-1 space-y-0.5">
          {flips.slice(0, 12).map((f) => (
            <li key={`${f.tool}|${f.mode}`} className="flex flex-wrap items-center gap-1">
              <code className="font-mono">{f.tool}</code> in {f.mode}: <CellBadge status={f.from} /> →{" "}
              <CellBadge status={f.to} />
            </li>
          ))}
          {flips.length > 12 && <li>…and {flips.length - 12} more (marked “changed” in the matrix).</li>}
        </ul>
      )}
      {dirty && flips.length === 0 && (
        <p>Limits, network rules and routing change how commands run and who is asked, not which tools a chat has.</p>
      )}
    </div>
  );
}
