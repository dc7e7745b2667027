"use client";
// Risk cues of a request (computed on the server, lib/exec/risk.ts) as labelled badges: the words carry the
// meaning, the colour only repeats it. The detail view also lists why each cue applies.
import type { Approval } from "./use-approvals";

const STYLE: Record<string, string> = {
  "not-analysed":
    "border-dashed border-slate-800 bg-slate-100 text-slate-950 dark:border-slate-200 dark:bg-slate-800 dark:text-slate-50",
  destructive: "border-red-700 bg-red-50 text-red-900 dark:border-red-400 dark:bg-red-950 dark:text-red-100",
  network:
    "border-violet-700 bg-violet-50 text-violet-900 dark:border-violet-400 dark:bg-violet-950 dark:text-violet-100",
  "outside-workspace":
    "border-amber-700 bg-amber-50 text-amber-950 dark:border-amber-400 dark:bg-amber-950 dark:text-amber-100",
  "first-use": "border-sky-700 bg-sky-50 text-sky-950 dark:border-sky-400 dark:bg-sky-950 dark:text-sky-100",
};

export function RiskBadges({ risks, withDetail = false }: { risks: Approval["risks"]; withDetail?: boolean }) {
  if (!risks?.length) return null;
  if (withDetail) {
    return (
      <ul aria-label="Risk cues" data-testid="risk-cues" className="space-y-1 text-sm">
        {risks.map((r) => (
          <li key={r.kind} data-risk={r.kind} className="flex flex-wrap items-baseline gap-2">
            <span className={`rounded border px-1.5 py-0.5 text-xs font-semibold ${STYLE[r.kind] ?? ""}`}>
              {r.label}
            </span>
            <span className="text-slate-700 dark:text-slate-300">{r.detail}</span>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <span className="flex flex-wrap gap-1" data-testid="risk-badges">
      <span className="sr-only">Risk:</span>
      {risks.map((r) => (
        <span
          key={r.kind}
          data-risk={r.kind}
          className={`rounded border px-1 text-[11px] font-semibold leading-4 ${STYLE[r.kind] ?? ""}`}
        >
          {r.label}
        </span>
      ))}
    </span>
  );
}
