"use client";
import { useEffect, useRef, useState } from "react";
import { FILTERABLE_RISK_KINDS, RISK_LABELS } from "@/lib/exec/risk-kinds";
import type { InboxFilters } from "./use-approvals";

const FIELD =
  "w-full rounded-md border border-slate-400 bg-white px-2 py-1 text-sm dark:border-slate-600 dark:bg-slate-900";

/**
 * Search and filters for the inbox, applied by the server (so they reach every request, not only the loaded
 * page). Typing is applied after a pause; "/" anywhere outside a field jumps to the search box.
 */
export function InboxFiltersForm({ onChange }: { onChange: (filters: InboxFilters) => void }) {
  const [draft, setDraft] = useState<InboxFilters>({});
  const search = useRef<HTMLInputElement>(null);
  useEffect(() => {
    // A requester filter is sent once it reads as an e-mail address, not at every keystroke before.
    const requester =
      draft.requester && /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(draft.requester.trim()) ? draft.requester : undefined;
    const t = setTimeout(() => onChange({ ...draft, requester }), 300);
    return () => clearTimeout(t);
  }, [draft, onChange]);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (e.key !== "/" || e.metaKey || e.ctrlKey || e.altKey) return;
      if (target && (["TEXTAREA", "INPUT", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
      e.preventDefault();
      search.current?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const set = (key: keyof InboxFilters) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [key]: e.target.value }));
  const active = Object.entries(draft).filter(([k, v]) => k !== "q" && v).length;
  return (
    <form
      role="search"
      aria-label="Filter requests"
      data-testid="inbox-filters"
      onSubmit={(e) => e.preventDefault()}
      className="mb-3 space-y-2"
    >
      <label className="block text-xs">
        <span className="text-slate-700 dark:text-slate-300">
          Search <kbd className="rounded border border-slate-400 px-1 dark:border-slate-600">/</kbd>
        </span>
        <input
          ref={search}
          type="search"
          value={draft.q ?? ""}
          onChange={set("q")}
          maxLength={200}
          placeholder="command, tool, person, chat…"
          className={FIELD}
        />
      </label>
      <details className="text-xs">
        <summary className="cursor-pointer text-slate-700 dark:text-slate-300">
          Filters{active ? ` (${active})` : ""}
        </summary>
        <div className="mt-2 grid grid-cols-2 gap-2">
          <label>
            Requester e-mail
            <input
              type="email"
              value={draft.requester ?? ""}
              onChange={set("requester")}
              maxLength={320}
              className={FIELD}
            />
          </label>
          <label>
            Tool
            <input
              value={draft.tool ?? ""}
              onChange={set("tool")}
              maxLength={200}
              placeholder="exec"
              className={FIELD}
            />
          </label>
          <label>
            Kind
            <select value={draft.kind ?? ""} onChange={set("kind")} className={FIELD}>
              <option value="">any</option>
              <option value="exec">commands</option>
              <option value="tool">other tools</option>
            </select>
          </label>
          <label>
            Risk
            <select
              value={draft.risk ?? ""}
              onChange={set("risk")}
              aria-describedby="risk-filter-note"
              className={FIELD}
            >
              <option value="">any</option>
              {FILTERABLE_RISK_KINDS.map((k) => (
                <option key={k} value={k}>
                  {RISK_LABELS[k]}
                </option>
              ))}
            </select>
          </label>
          <label>
            Agent
            <input value={draft.agent ?? ""} onChange={set("agent")} maxLength={200} className={FIELD} />
          </label>
          <label>
            Team
            <input value={draft.team ?? ""} onChange={set("team")} maxLength={200} className={FIELD} />
          </label>
        </div>
        {/* Why "first use" is not offered: it depends on what the requester ran before, not on the request. */}
        <p id="risk-filter-note" className="mt-1 text-slate-700 dark:text-slate-300">
          Risk filters by what the request itself does; “First use” is shown on each request but not filterable.
        </p>
      </details>
    </form>
  );
}
