"use client";
// /admin/audit: filters, the table (server-side cursor pagination) and the hash-chain check.
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { POLICY_LAYERS } from "@/lib/policy";
import {
  auditExportHref,
  EMPTY_FILTERS,
  filtersFromParams,
  filtersToParams,
  useAuditPage,
  useVerifyChain,
  type AuditFilters,
} from "./use-audit";

const input =
  "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-700 dark:bg-slate-900 dark:[color-scheme:dark]";
const ACTIONS = [
  "tool.call",
  "approval.requested",
  "approval.resolved",
  "approval.expired",
  "approval.voted",
  "approval.escalated",
  "grant.created",
  "grant.revoked",
  "session.reviewed",
  "audit.exported",
  "policy.saved",
  "policy.rolled_back",
  "session.created",
  "session.mode_changed",
  "session.renamed",
  "session.deleted",
  "session.restored",
  "session.mode_change_refused",
  "user.role_added",
  "user.role_removed",
  "user.created",
  "user.password_reset",
  "user.password_changed",
  "user.deactivated",
  "user.reactivated",
  "team.created",
  "team.member_added",
  "team.member_removed",
  "model.credentials_refused",
];
const LAYERS = [...POLICY_LAYERS, "allowed", "not_found", "exec", "approval", "hook", "limits", "policy"];

const fieldValue = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

/**
 * The details as fields (name: value), one line until opened; opened, each field on its own line, with the raw JSON
 * one more click away (keyboard reachable, unlike a title tooltip).
 */
function DetailsCell({ details }: { details: unknown }) {
  if (details === null || details === undefined) return null;
  const fields =
    typeof details === "object" && !Array.isArray(details) ? Object.entries(details as Record<string, unknown>) : null;
  const line = fields ? fields.map(([k, v]) => `${k}: ${fieldValue(v)}`).join(" · ") : JSON.stringify(details);
  return (
    <details className="max-w-[15rem]" data-testid="audit-details">
      <summary className="cursor-pointer truncate">{line.length > 60 ? `${line.slice(0, 60)}…` : line}</summary>
      {fields ? (
        <dl className="mt-1 space-y-0.5">
          {fields.map(([k, v]) => (
            <div key={k}>
              <dt className="inline font-semibold">{k}: </dt>
              <dd className="inline whitespace-pre-wrap break-all font-mono">{fieldValue(v)}</dd>
            </div>
          ))}
        </dl>
      ) : null}
      <details className="mt-1">
        <summary className="cursor-pointer text-sky-700 dark:text-sky-400">Raw JSON</summary>
        <pre className="mt-1 whitespace-pre-wrap break-all font-mono">{JSON.stringify(details, null, 2)}</pre>
      </details>
    </details>
  );
}

function Field({ label, children }: { label: string; children: React.ReactNode }) {
  return (
    <label className="flex flex-col text-xs">
      {label}
      {children}
    </label>
  );
}

/** The filters live in the URL (shareable, kept on reload and by Back); a new URL starts a fresh view at page one. */
export function AuditLog() {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const apply = (filters: AuditFilters) => {
    const query = filtersToParams(filters);
    router.replace(query ? `${pathname}?${query}` : pathname, { scroll: false });
  };
  return <AuditView key={params.toString()} filters={filtersFromParams(params)} onApply={apply} />;
}

function AuditView({ filters, onApply }: { filters: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const [draft, setDraft] = useState<AuditFilters>(filters);
  // Cursors of the pages before the current one, so "Newer" can go back.
  const [cursors, setCursors] = useState<Array<number | undefined>>([]);
  const [cursor, setCursor] = useState<number>();
  const page = useAuditPage(filters, cursor);
  const verify = useVerifyChain();
  const set = (key: keyof AuditFilters) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [key]: e.target.value });

  return (
    <div className="space-y-3">
      <form
        className="flex flex-wrap items-end gap-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
        aria-label="Audit filters"
        onSubmit={(e) => {
          e.preventDefault();
          onApply(draft);
        }}
      >
        <Field label="User (part of an e-mail, or an id)">
          <input className={`${input} w-44`} value={draft.user} onChange={set("user")} />
        </Field>
        <Field label="Session id">
          <input className={`${input} w-40`} value={draft.session} onChange={set("session")} />
        </Field>
        <Field label="Tool">
          <input className={`${input} w-32`} value={draft.tool} onChange={set("tool")} />
        </Field>
        <Field label="Decision">
          <select className={input} value={draft.decision} onChange={set("decision")}>
            <option value="">any</option>
            <option value="allow">allow</option>
            <option value="deny">deny</option>
          </select>
        </Field>
        <Field label="Layer">
          <select className={input} value={draft.layer} onChange={set("layer")}>
            <option value="">any</option>
            {LAYERS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </Field>
        <Field label="Action">
          <select className={input} value={draft.action} onChange={set("action")}>
            <option value="">any</option>
            {ACTIONS.map((a) => (
              <option key={a}>{a}</option>
            ))}
          </select>
        </Field>
        <Field label="From">
          <input type="datetime-local" className={input} value={draft.from} onChange={set("from")} />
        </Field>
        <Field label="To">
          <input type="datetime-local" className={input} value={draft.to} onChange={set("to")} />
        </Field>
        <button type="submit" className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white">
          Apply filters
        </button>
        <button
          type="button"
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
          onClick={() => onApply(EMPTY_FILTERS)}
        >
          Clear
        </button>
      </form>

      <div className="flex flex-wrap items-center gap-3">
        <button
          type="button"
          onClick={() => verify.mutate()}
          disabled={verify.isPending}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
        >
          {verify.isPending ? "Verifying…" : "Verify chain"}
        </button>
        <span className="text-sm text-slate-600 dark:text-slate-400">Export what these filters match:</span>
        <a
          href={auditExportHref(filters, "csv")}
          download
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
        >
          CSV
        </a>
        <a
          href={auditExportHref(filters, "json")}
          download
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
        >
          JSON
        </a>
        <span role="status" aria-live="polite" data-testid="verify-result" className="text-sm">
          {verify.error && <span className="text-rose-700 dark:text-rose-300">✕ {verify.error.message}</span>}
          {verify.data?.ok === true && (
            <span className="text-emerald-700 dark:text-emerald-300">
              ✓ Chain intact: {verify.data.count} rows verified
              {typeof verify.data.witness === "object"
                ? `; the log still holds row ${verify.data.witness.seq}, which the witness (${verify.data.witness.label}) recorded at ${verify.data.witness.at}.`
                : verify.data.witness === "off"
                  ? "; no witness outside the database is configured (AUDIT_WITNESS=off)."
                  : "."}
            </span>
          )}
          {verify.data?.ok === false && (
            <span className="font-semibold text-rose-700 dark:text-rose-300">
              ✕ Chain broken at row {verify.data.seq}: {verify.data.problem}.
            </span>
          )}
        </span>
      </div>

      {page.error && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          ✕ {page.error.message}
        </p>
      )}
      {page.data && page.data.entries.length === 0 && (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          No entries match these filters. Clear a filter or widen the time range.
        </p>
      )}
      {page.data && page.data.entries.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-slate-200 dark:border-slate-800">
          <table className="w-full text-left text-xs" aria-label="Audit log">
            <thead className="bg-slate-50 dark:bg-slate-900">
              <tr>
                {["#", "When", "Action", "User", "Session", "Tool", "Decision", "Layer / rule", "Details"].map((h) => (
                  <th key={h} scope="col" className="px-2 py-1.5">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.data.entries.map((e) => (
                <tr key={e.seq} className="border-t border-slate-100 align-top dark:border-slate-800">
                  <td className="px-2 py-1">{e.seq}</td>
                  <td className="whitespace-nowrap px-2 py-1">{new Date(e.at).toLocaleString()}</td>
                  <td className="px-2 py-1 font-mono">{e.action}</td>
                  <td className="px-2 py-1" title={e.actorId ?? undefined}>
                    {e.actorEmail ?? e.actorId ?? "—"}
                  </td>
                  <td className="px-2 py-1">
                    {e.sessionId ? (
                      <Link
                        href={`/approvals/sessions/${e.sessionId}`}
                        className="font-mono text-sky-700 underline dark:text-sky-400"
                        title="Opens the conversation read-only (the reading is audited)"
                      >
                        {e.sessionId}
                      </Link>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="px-2 py-1 font-mono">{e.toolName ?? "—"}</td>
                  <td className="px-2 py-1">
                    {e.decision === "deny" ? (
                      <span className="text-rose-700 dark:text-rose-300">✕ deny</span>
                    ) : e.decision === "allow" ? (
                      <span className="text-emerald-700 dark:text-emerald-300">✓ allow</span>
                    ) : (
                      "—"
                    )}
                  </td>
                  <td className="px-2 py-1 font-mono">{[e.layer, e.rule].filter(Boolean).join(" · ") || "—"}</td>
                  <td className="px-2 py-1">
                    <DetailsCell details={e.details} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav aria-label="Audit pages" className="flex gap-2">
        <button
          type="button"
          disabled={cursors.length === 0}
          onClick={() => {
            setCursor(cursors[cursors.length - 1]);
            setCursors(cursors.slice(0, -1));
          }}
          className="rounded-md border border-slate-300 px-3 py-1 text-sm disabled:opacity-50 dark:border-slate-700"
        >
          ← Newer
        </button>
        <button
          type="button"
          disabled={!page.data?.nextCursor}
          onClick={() => {
            setCursors([...cursors, cursor]);
            setCursor(page.data?.nextCursor ?? undefined);
          }}
          className="rounded-md border border-slate-300 px-3 py-1 text-sm disabled:opacity-50 dark:border-slate-700"
        >
          Older →
        </button>
      </nav>
    </div>
  );
}
