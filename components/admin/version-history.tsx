"use client";
// Who changed the policy, when, why, and what; any version can be restored (as a new version).
import { useRollback, useVersions } from "./use-policy-api";

export function VersionHistory({ currentVersion }: { currentVersion: number }) {
  const versions = useVersions();
  const rollback = useRollback();
  if (versions.isPending) return <p className="text-sm">Loading history…</p>;
  if (versions.error) return <p role="alert" className="text-sm text-rose-700">Could not load the history: {versions.error.message}</p>;
  const rows = versions.data.versions;
  if (rows.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">No saved versions yet: the built-in default policy is in force. Save a draft to create version 1.</p>;
  return (
    <div className="space-y-2">
      {rollback.error && <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">✕ {rollback.error.message}</p>}
      <table className="w-full text-left text-sm" aria-label="Policy versions">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-800">
            <th scope="col" className="py-1">Version</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Comment</th>
            <th scope="col">Changed</th>
            <th scope="col"><span className="sr-only">Actions</span></th>
          </tr>
        </thead>
        <tbody>
          {rows.map((v) => (
            <tr key={v.version} className="border-b border-slate-100 align-top dark:border-slate-900">
              <td className="py-1">
                {v.version}
                {v.version === currentVersion && <span className="ml-1 rounded bg-emerald-100 px-1 text-xs text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100">in force</span>}
              </td>
              <td className="whitespace-nowrap text-xs">{new Date(v.createdAt).toLocaleString()}</td>
              <td className="text-xs">{v.createdBy?.email ?? v.createdBy?.id ?? "—"}</td>
              <td className="text-xs">{v.comment ?? "—"}</td>
              <td className="font-mono text-xs" title={v.changedPaths?.join(", ")}>{v.changed === null ? "?" : v.changed.join(", ") || "nothing"}</td>
              <td className="text-right">
                {v.version !== currentVersion && (
                  <button
                    type="button"
                    className="rounded border border-slate-300 px-2 py-0.5 text-xs dark:border-slate-700"
                    disabled={rollback.isPending}
                    onClick={() => {
                      if (window.confirm(`Restore version ${v.version}? It is saved as a new version.`)) rollback.mutate(v.version);
                    }}
                  >
                    Roll back to {v.version}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
