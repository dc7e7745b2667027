"use client";
// The whole document as JSON. A textarea on purpose: nothing to load, works with every assistive technology.
import { DraftProblems } from "./draft-problems";
import type { DraftState } from "./use-policy-draft";

export function JsonEditor({ draft }: { draft: DraftState }) {
  return (
    <div className="space-y-2">
      <label htmlFor="policy-json" className="block text-sm font-semibold">
        Policy document (JSON)
      </label>
      <textarea
        id="policy-json"
        spellCheck={false}
        aria-describedby="policy-json-help"
        value={draft.text}
        onChange={(e) => draft.setText(e.target.value)}
        className="h-[28rem] w-full rounded-md border border-slate-300 bg-white p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
      />
      <p id="policy-json-help" className="text-xs text-slate-500 dark:text-slate-400">
        Checked as you type with the same schema the server uses. Missing sections get their defaults.
      </p>
      <DraftProblems draft={draft} />
    </div>
  );
}
