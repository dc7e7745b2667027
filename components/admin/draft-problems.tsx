// What is wrong with the draft, as you type: JSON syntax (with line and column), schema issues with paths, refused
// overrides and deny lists naming nothing (errors), unknown names in allow lists and plugin-only allow lists (warnings).
import type { DraftState } from "./use-policy-draft";

export function DraftProblems({ draft }: { draft: DraftState }) {
  const issues = draft.check?.issues ?? [];
  const warnings = draft.check?.warnings ?? [];
  const unknownDenies = draft.check?.unknownDenies ?? [];
  if (!draft.jsonError && issues.length === 0 && warnings.length === 0 && unknownDenies.length === 0) {
    return (
      <p className="text-sm text-emerald-700 dark:text-emerald-300" role="status">
        ✓ The draft is valid.
      </p>
    );
  }
  return (
    <div className="space-y-2 text-sm" role="status" aria-live="polite">
      {draft.jsonError && <p className="text-rose-700 dark:text-rose-300">✕ Not valid JSON: {draft.jsonError}</p>}
      {issues.length > 0 && (
        <div>
          <p className="font-semibold text-rose-700 dark:text-rose-300">
            ✕ {issues.length} problem{issues.length === 1 ? "" : "s"} to fix before saving
          </p>
          <ul className="ml-5 list-disc" data-testid="draft-issues">
            {issues.map((issue) => (
              <li key={`${issue.path}|${issue.message}`}>
                <code className="font-mono">{issue.path}</code>: {issue.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {unknownDenies.length > 0 && (
        <div>
          <p className="font-semibold text-rose-700 dark:text-rose-300">
            ✕ {unknownDenies.length} deny list{unknownDenies.length === 1 ? "" : "s"} name
            {unknownDenies.length === 1 ? "s" : ""} nothing: fix the name, or save anyway
          </p>
          <ul className="ml-5 list-disc" data-testid="draft-deny-errors">
            {unknownDenies.map((d) => (
              <li key={d.path}>
                <code className="font-mono">{d.path}</code>: {d.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {warnings.length > 0 && (
        <div>
          <p className="font-semibold text-amber-800 dark:text-amber-300">
            ⚠ {warnings.length} warning{warnings.length === 1 ? "" : "s"}
          </p>
          <ul className="ml-5 list-disc" data-testid="draft-warnings">
            {warnings.map((w) => (
              <li key={`${w.code}|${w.source}|${w.message}`}>
                <span className="font-mono text-xs">[{w.code}]</span> {w.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}
