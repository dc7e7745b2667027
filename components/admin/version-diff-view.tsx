"use client";
// The difference between two policy versions: the changed paths, then the documents' lines (canonical JSON, keys
// sorted) with what was removed and added, unchanged runs collapsed. Marked with a sign and a word, never colour alone.
import { useMemo } from "react";
import { diffVersions, withContext } from "@/lib/admin/version-diff";
import { useVersionDocument } from "./use-policy-api";

const versionName = (v: number) => (v === 0 ? "the built-in default" : `version ${v}`);

export function VersionDiffView({ from, to, title }: { from: number; to: number; title?: string }) {
  const before = useVersionDocument(from);
  const after = useVersionDocument(to);
  const diff = useMemo(
    () => (before.data && after.data ? diffVersions(before.data.document, after.data.document) : undefined),
    [before.data, after.data],
  );
  const heading = title ?? `From ${versionName(from)} to ${versionName(to)}`;
  if (before.error || after.error)
    return (
      <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
        ✕ Could not load the versions: {(before.error ?? after.error)?.message}
      </p>
    );
  if (!diff)
    return (
      <p role="status" className="text-sm">
        Loading {heading.toLowerCase()}…
      </p>
    );
  return (
    <section
      aria-label={heading}
      data-testid="version-diff"
      className="space-y-2 rounded-lg border border-slate-200 p-3 text-sm dark:border-slate-800"
    >
      <h3 className="font-semibold">{heading}</h3>
      {diff.paths.length === 0 ? (
        <p data-testid="version-diff-none">No difference: the two documents are the same.</p>
      ) : (
        <>
          <p>
            {diff.paths.length} path{diff.paths.length === 1 ? "" : "s"} change ({diff.removed} line
            {diff.removed === 1 ? "" : "s"} removed, {diff.added} added):{" "}
            <code className="font-mono text-xs" data-testid="version-diff-paths">
              {diff.paths.join(", ")}
            </code>
          </p>
          <pre
            className="max-h-96 overflow-auto rounded bg-slate-50 p-2 font-mono text-xs leading-5 dark:bg-slate-900"
            data-testid="version-diff-lines"
          >
            {withContext(diff.lines).map((line, index) =>
              line.kind === "skip" ? (
                <div key={index} className="text-slate-500 dark:text-slate-400">
                  ⋯ {line.count} unchanged line{line.count === 1 ? "" : "s"}
                </div>
              ) : (
                <div
                  key={index}
                  data-kind={line.kind}
                  className={
                    line.kind === "added"
                      ? "bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-200"
                      : line.kind === "removed"
                        ? "bg-rose-100 text-rose-900 dark:bg-rose-950 dark:text-rose-200"
                        : ""
                  }
                >
                  <span aria-hidden="true" className="inline-block w-4 select-none">
                    {line.kind === "added" ? "+" : line.kind === "removed" ? "−" : " "}
                  </span>
                  <span className="sr-only">
                    {line.kind === "added" ? "added: " : line.kind === "removed" ? "removed: " : ""}
                  </span>
                  {line.text}
                </div>
              ),
            )}
          </pre>
        </>
      )}
    </section>
  );
}
