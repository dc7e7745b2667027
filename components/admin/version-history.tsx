"use client";
// Who changed the policy, when, why, and what; any two versions can be compared, and a rollback first shows what
// it would change against the version in force before it is confirmed (it is saved as a new version).
import { useState } from "react";
import { useRollback, useVersions } from "./use-policy-api";
import { VersionDiffView } from "./version-diff-view";

const button = "rounded border border-slate-300 px-2 py-0.5 text-xs dark:border-slate-700";
const select = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-700 dark:bg-slate-900";

export function VersionHistory({ currentVersion }: { currentVersion: number }) {
  const versions = useVersions();
  const rollback = useRollback();
  const [compare, setCompare] = useState<{ from: number; to: number }>();
  const [picked, setPicked] = useState<{ from?: number; to?: number }>({});
  const [restore, setRestore] = useState<number>();
  if (versions.isPending) return <p className="text-sm">Loading history…</p>;
  if (versions.error)
    return (
      <p role="alert" className="text-sm text-rose-700">
        Could not load the history: {versions.error.message}
      </p>
    );
  const rows = versions.data.versions;
  if (rows.length === 0)
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400">
        No saved versions yet: the built-in default policy is in force. Save a draft to create version 1.
      </p>
    );
  // Version 0 is the built-in default the first saved version replaced.
  const numbers = [...rows.map((r) => r.version), ...(rows.some((r) => r.version === 1) ? [0] : [])];
  const from = picked.from ?? numbers[1] ?? numbers[0]!;
  const to = picked.to ?? numbers[0]!;
  return (
    <div className="space-y-3">
      {rollback.error && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          ✕ {rollback.error.message}
        </p>
      )}
      {rollback.isSuccess && (
        <p role="status" className="text-sm text-emerald-700 dark:text-emerald-300">
          ✓ Restored as version {rollback.data.version}.
        </p>
      )}
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          setRestore(undefined);
          setCompare({ from, to });
        }}
      >
        <label className="flex flex-col gap-0.5 text-xs">
          Compare
          <select
            aria-label="Compare version"
            className={select}
            value={from}
            onChange={(e) => setPicked({ ...picked, from: Number(e.target.value) })}
          >
            {numbers.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? "0 (built-in default)" : n}
              </option>
            ))}
          </select>
        </label>
        <label className="flex flex-col gap-0.5 text-xs">
          with
          <select
            aria-label="with version"
            className={select}
            value={to}
            onChange={(e) => setPicked({ ...picked, to: Number(e.target.value) })}
          >
            {numbers.map((n) => (
              <option key={n} value={n}>
                {n === 0 ? "0 (built-in default)" : n}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" className={button}>
          Show the difference
        </button>
      </form>
      {compare && !restore && <VersionDiffView from={compare.from} to={compare.to} />}
      {restore !== undefined && (
        <div className="space-y-2 rounded-lg border border-amber-300 p-3 dark:border-amber-700">
          <VersionDiffView
            from={currentVersion}
            to={restore}
            title={`What rolling back to version ${restore} would change (from version ${currentVersion}, in force)`}
          />
          <div className="flex gap-2">
            <button
              type="button"
              className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
              disabled={rollback.isPending}
              onClick={() => rollback.mutate(restore, { onSuccess: () => setRestore(undefined) })}
            >
              Restore version {restore}
            </button>
            <button
              type="button"
              className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
              onClick={() => setRestore(undefined)}
            >
              Cancel
            </button>
          </div>
        </div>
      )}
      <div className="overflow-x-auto">
        <table className="w-full min-w-[40rem] text-left text-sm" aria-label="Policy versions">
          <thead>
            <tr className="border-b border-slate-200 dark:border-slate-800">
              <th scope="col" className="py-1">
                Version
              </th>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">Comment</th>
              <th scope="col">Changed</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((v, index) => {
              const previous = rows[index + 1]?.version ?? (v.version === 1 ? 0 : undefined);
              return (
                <tr key={v.version} className="border-b border-slate-100 align-top dark:border-slate-900">
                  <td className="py-1">
                    {v.version}
                    {v.version === currentVersion && (
                      <span className="ml-1 rounded bg-emerald-100 px-1 text-xs text-emerald-900 dark:bg-emerald-900 dark:text-emerald-100">
                        in force
                      </span>
                    )}
                  </td>
                  <td className="whitespace-nowrap text-xs">{new Date(v.createdAt).toLocaleString()}</td>
                  <td className="text-xs">{v.createdBy?.email ?? v.createdBy?.id ?? "—"}</td>
                  <td className="text-xs">{v.comment ?? "—"}</td>
                  <td className="font-mono text-xs" title={v.changedPaths?.join(", ")}>
                    {v.changed === null ? "?" : v.changed.join(", ") || "nothing"}
                  </td>
                  <td className="space-x-1 whitespace-nowrap text-right">
                    {previous !== undefined && (
                      <button
                        type="button"
                        className={button}
                        aria-label={`Show what version ${v.version} changed`}
                        onClick={() => {
                          setRestore(undefined);
                          setPicked({ from: previous, to: v.version });
                          setCompare({ from: previous, to: v.version });
                        }}
                      >
                        Diff
                      </button>
                    )}
                    {v.version !== currentVersion && (
                      <button
                        type="button"
                        className={button}
                        disabled={rollback.isPending}
                        onClick={() => setRestore(v.version)}
                      >
                        Roll back to {v.version}…
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
