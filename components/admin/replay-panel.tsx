"use client";
// Replays the last N recorded tool calls against the draft: which of them it would decide differently.
import { useState } from "react";
import { CellBadge } from "./cell-badge";
import { useReplay } from "./use-policy-api";
import type { DraftState } from "./use-policy-draft";

export function ReplayPanel({ draft }: { draft: DraftState }) {
  const replay = useReplay();
  const [limit, setLimit] = useState(50);
  const [onlyDiffering, setOnlyDiffering] = useState(true);
  const rows = replay.data?.calls.filter((c) => !onlyDiffering || c.differs) ?? [];
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-center gap-3">
        <label className="flex items-center gap-1 text-xs">
          Last
          <input
            type="number"
            min={1}
            max={500}
            value={limit}
            onChange={(e) => setLimit(Math.max(1, Math.min(500, Number(e.target.value) || 50)))}
            className="w-20 rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
          />
          recorded tool calls
        </label>
        <button
          type="button"
          disabled={draft.json === undefined || replay.isPending}
          onClick={() => replay.mutate({ document: draft.json, limit })}
          className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-50 dark:bg-slate-200 dark:text-slate-900"
        >
          {replay.isPending ? "Replaying…" : "Replay against the draft"}
        </button>
        <label className="flex items-center gap-1 text-xs">
          <input type="checkbox" checked={onlyDiffering} onChange={(e) => setOnlyDiffering(e.target.checked)} /> only
          calls decided differently
        </label>
      </div>
      {replay.error && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          ✕ {replay.error.message}
        </p>
      )}
      {replay.data && (
        <p role="status" className="text-sm">
          {replay.data.differing} of {replay.data.calls.length} recorded calls would be decided differently by the
          draft.
        </p>
      )}
      {replay.data && rows.length > 0 && (
        <table className="w-full text-left text-xs">
          <thead>
            <tr className="border-b border-slate-200 dark:border-slate-800">
              <th scope="col" className="py-1">
                #
              </th>
              <th scope="col">When</th>
              <th scope="col">Tool</th>
              <th scope="col">Mode</th>
              <th scope="col">Recorded</th>
              <th scope="col">Draft</th>
              <th scope="col">Draft layer / rule</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr
                key={c.seq}
                className={`border-b border-slate-100 dark:border-slate-900 ${c.differs ? "bg-violet-50 dark:bg-violet-950" : ""}`}
              >
                <td className="py-1">{c.seq}</td>
                <td className="whitespace-nowrap">{new Date(c.at).toLocaleString()}</td>
                <td className="font-mono">{c.toolName}</td>
                <td>{c.mode}</td>
                <td>
                  <CellBadge status={c.recorded} />
                </td>
                <td>
                  <CellBadge status={c.draft} />
                  {c.differs && (
                    <span className="ml-1 font-semibold text-violet-700 dark:text-violet-300">changed</span>
                  )}
                </td>
                <td className="font-mono">
                  {c.draftLayer}
                  {c.draftRule ? ` · ${c.draftRule}` : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
