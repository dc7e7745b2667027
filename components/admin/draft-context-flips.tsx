"use client";
// While a draft differs from the saved policy: the cells it flips in the contexts it touches (each agent and team it
// names, lib/admin/matrix-contexts.ts). The matrix shows one context; a change to one agent or team would otherwise
// look like "0 cells change" there. Under the matrix it lists the other contexts that change; in a form tab
// (includeBase) every context, the matrix's own first, so the effect is in view where the edit is made.
import { useMemo } from "react";
import { previewPlan, type LabeledContext, type LeftOut } from "@/lib/admin/matrix-contexts";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import { parsePolicyDocument, type PolicyDocument } from "@/lib/policy";
import { ContextFlipList, LeftOutNote } from "./context-flips";
import { useContextFlips } from "./use-context-flips";

export function DraftContextFlips({
  saved,
  draft,
  base,
  includeBase = false,
  onPick,
}: {
  saved: PolicyDocument;
  draft: PolicyDocument | undefined;
  base: LabeledContext;
  includeBase?: boolean;
  /** Switch the matrix to a context the list names. */
  onPick?: (context: MatrixContextInput) => void;
}) {
  const { contexts, leftOut } = useMemo((): { contexts: LabeledContext[]; leftOut?: LeftOut } => {
    if (!draft) return { contexts: [] };
    const before = parsePolicyDocument(saved);
    const plan = before.ok
      ? previewPlan({ before: before.document, after: draft, base, limit: 9 })
      : { contexts: [base] };
    return { ...plan, contexts: includeBase ? plan.contexts : plan.contexts.slice(1) };
  }, [saved, draft, base, includeBase]);
  const { rows, pending } = useContextFlips(contexts, draft);
  const testId = includeBase ? "form-effect" : "draft-context-flips";
  if (!draft) {
    return includeBase ? (
      <p className="text-sm text-slate-600 dark:text-slate-400" data-testid={testId}>
        No unsaved changes. An edit here shows its effect on the matrix at once, before you save.
      </p>
    ) : null;
  }
  if (contexts.length === 0) return null;
  const changed = rows.filter((r) => (r.flips?.length ?? 0) > 0 || r.error);
  const summary = pending
    ? "Checking the contexts the draft touches…"
    : includeBase
      ? `Effect of the draft on the matrix (not saved yet): ${changed.length === 0 ? "no cell changes in" : `cells change in ${changed.length} of`} ${contexts.length} context${contexts.length === 1 ? "" : "s"}.`
      : changed.length === 0
        ? `No other context changes (checked ${contexts.length}: each agent and team the draft names).`
        : "The draft also changes, with an agent or in a team:";
  return (
    <div
      className="space-y-1 rounded-md border border-violet-300 p-2 text-sm dark:border-violet-800"
      data-testid={testId}
      role="status"
      aria-live="polite"
    >
      <p className="font-medium">{summary}</p>
      <ContextFlipList rows={rows} testId={`${testId}-list`} hideUnchanged {...(onPick ? { onPick } : {})} />
      <LeftOutNote leftOut={leftOut} testId={`${testId}-left-out`} />
    </div>
  );
}
