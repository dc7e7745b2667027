"use client";
import { visibleText } from "@/lib/exec/visible-text";
import { ExpiryCountdown } from "./expiry-countdown";
import { RiskBadges } from "./risk-badges";
import type { Approval } from "./use-approvals";

/** Who asked, by name where there is one (records show people, not ids). */
export function personLabel(p: { id: string; email: string | null; name?: string | null }): string {
  if (p.name && p.email) return `${p.name} (${p.email})`;
  return p.email ?? p.name ?? p.id;
}

export function ApprovalRow({
  approval,
  selected,
  isNew,
  onSelect,
  checked,
  onCheck,
}: {
  approval: Approval;
  selected: boolean;
  isNew: boolean;
  onSelect: () => void;
  /** Pending rows only: chosen for a bulk deny. */
  checked?: boolean;
  onCheck?: (checked: boolean) => void;
}) {
  const pending = approval.status === "pending";
  return (
    <li className="flex items-start gap-1">
      {onCheck ? (
        <input
          type="checkbox"
          checked={checked ?? false}
          onChange={(e) => onCheck(e.target.checked)}
          aria-label={`Choose ${approval.toolName} request by ${approval.requester.email ?? approval.requester.id} for bulk deny`}
          data-testid="approval-check"
          className="mt-3 ml-1 size-4 shrink-0"
        />
      ) : null}
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        data-testid="approval-row"
        data-approval-id={approval.id}
        data-new={isNew ? "true" : undefined}
        className={`min-w-0 flex-1 rounded-md px-3 py-2 text-left text-sm focus-visible:outline-2 focus-visible:outline-sky-600 ${selected ? "bg-slate-100 ring-2 ring-sky-600 dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
      >
        <div className="flex items-center justify-between gap-2">
          <span className="font-mono font-medium">{approval.toolName}</span>
          <span className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
            {isNew ? <span className="rounded bg-sky-700 px-1.5 py-0.5 font-semibold text-white">New</span> : null}
            {pending ? (
              <ExpiryCountdown expiresAt={approval.expiresAt} />
            ) : (
              new Date(approval.createdAt).toLocaleTimeString()
            )}
          </span>
        </div>
        <div className="truncate font-mono text-xs text-slate-600 dark:text-slate-400">
          {visibleText(approval.command ?? JSON.stringify(approval.args))}
        </div>
        <RiskBadges risks={approval.risks} />
        <div className="truncate text-xs text-slate-600 dark:text-slate-400">
          {personLabel(approval.requester)}
          {approval.client
            ? ` via ${approval.client}`
            : approval.sessionTitle
              ? ` in “${approval.sessionTitle}”`
              : ""}{" "}
          · {approval.outcome ?? approval.status}
        </div>
      </button>
    </li>
  );
}

/** Arrow keys (and j/k) move between the rows of a list; Home and End go to its ends. Enter or Space opens one. */
export function moveFocus(e: React.KeyboardEvent<HTMLElement>) {
  const keys: Record<string, number> = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, Home: -Infinity, End: Infinity };
  const step = keys[e.key];
  if (step === undefined || e.metaKey || e.ctrlKey || e.altKey) return;
  const rows = [...e.currentTarget.querySelectorAll<HTMLElement>('[data-testid="approval-row"]')];
  if (!rows.length) return;
  e.preventDefault();
  const at = rows.indexOf(document.activeElement as HTMLElement);
  const next =
    step === -Infinity
      ? 0
      : step === Infinity
        ? rows.length - 1
        : Math.min(rows.length - 1, Math.max(0, at === -1 ? 0 : at + step));
  rows[next]?.focus();
  rows[next]?.scrollIntoView({ block: "nearest" });
}
