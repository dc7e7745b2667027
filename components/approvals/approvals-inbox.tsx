"use client";
import { useEffect, useRef, useState } from "react";
import { visibleText } from "@/lib/exec/visible-text";
import { ApprovalDetail } from "./approval-detail";
import { RiskBadges } from "./risk-badges";
import { useApprovals, type Approval } from "./use-approvals";

const STATUS_LABEL: Record<Approval["status"], string> = { pending: "pending", approved: "approved", denied: "denied", expired: "expired" };

function ApprovalRow({ approval, selected, isNew, onSelect }: { approval: Approval; selected: boolean; isNew: boolean; onSelect: () => void }) {
  return (
    <li>
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        data-testid="approval-row"
        data-new={isNew ? "true" : undefined}
        className={`w-full rounded-md px-3 py-2 text-left text-sm ${selected ? "bg-slate-100 ring-2 ring-sky-600 dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
      >
        <div className="flex items-center justify-between gap-2">
          <span className="font-mono font-medium">{approval.toolName}</span>
          <span className="flex items-center gap-2 text-xs text-slate-600 dark:text-slate-400">
            {isNew ? <span className="rounded bg-sky-700 px-1.5 py-0.5 font-semibold text-white">New</span> : null}
            {new Date(approval.createdAt).toLocaleTimeString()}
          </span>
        </div>
        <div className="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{visibleText(approval.command ?? JSON.stringify(approval.args))}</div>
        <RiskBadges risks={approval.risks} />
        <div className="text-xs text-slate-600 dark:text-slate-400">
          {approval.requester.email}
          {approval.client ? ` via ${approval.client}` : ""} · {STATUS_LABEL[approval.status]}
          {approval.decision ? ` (${approval.decision})` : ""}
        </div>
      </button>
    </li>
  );
}

/**
 * The owner's inbox. What is open changes only when the owner opens something: a request that arrives is
 * marked "New" in the list and announced, never opened; a decision leaves the decided request open (showing
 * its outcome) instead of advancing to the next one. The open request is kept even after it leaves the list.
 * On a phone the open request comes first (above the lists, scrolled to when the owner taps a row) with its
 * decision buttons in a bar that stays on screen, and the decided history is folded away until asked for.
 */
export function ApprovalsInbox({ openId }: { openId?: string } = {}) {
  const { pending, history } = useApprovals();
  // The open request: chosen by the owner only. Fresh data for it is shown; if it leaves both lists the last
  // known copy stays open.
  const [selected, setSelected] = useState<Approval | null>(null);
  const [seen, setSeen] = useState<ReadonlySet<string> | null>(null);
  const all = [...(pending.data ?? []), ...(history.data ?? [])];
  // Whatever was there when the inbox opened is not new; everything after is, until the owner opens it.
  if (seen === null && pending.data) setSeen(new Set(pending.data.map((a) => a.id)));
  const fresh = seen ? (pending.data ?? []).filter((a) => !seen.has(a.id)) : [];
  // A link (a notification's click, an e-mail's "open in the inbox") names the request to open, once it is listed.
  const [linked, setLinked] = useState(openId);
  if (linked && !selected) {
    const target = all.find((a) => a.id === linked);
    if (target) {
      setLinked(undefined);
      setSelected(target);
    }
  }
  const current = selected ? (all.find((a) => a.id === selected.id) ?? selected) : null;
  const [historyShown, setHistoryShown] = useState(false);
  const detailPane = useRef<HTMLDivElement>(null);
  // Set by a tap on a row, so only the owner's own action scrolls (an arriving request never moves the page).
  const scrollOnOpen = useRef(false);
  const open = (a: Approval) => {
    setSeen((s) => new Set([...(s ?? []), a.id]));
    setSelected(a);
    scrollOnOpen.current = true;
  };
  const currentId = current?.id;
  useEffect(() => {
    if (!scrollOnOpen.current || !currentId) return;
    scrollOnOpen.current = false;
    // Side by side (md and up) the detail is already in view; stacked, it is above the list the owner tapped in.
    if (window.matchMedia("(max-width: 767px)").matches) detailPane.current?.scrollIntoView({ block: "start" });
  }, [currentId]);
  const historyCount = history.data?.length ?? 0;
  return (
    <div className="grid flex-1 grid-cols-[22rem_1fr] content-start gap-0 max-md:grid-cols-1">
      <div className="min-w-0 border-r border-slate-200 p-3 dark:border-slate-800 max-md:border-r-0 max-md:border-b">
        <h2 className="mb-2 text-sm font-semibold">
          Pending <span data-testid="pending-count">{pending.data?.length ?? 0}</span>
        </h2>
        <p aria-live="polite" data-testid="new-requests" className="sr-only">
          {fresh.length ? `${fresh.length} new request${fresh.length === 1 ? "" : "s"} in the list` : ""}
        </p>
        {pending.isLoading ? <p className="text-sm text-slate-600 dark:text-slate-400">Loading…</p> : null}
        {pending.error ? <p role="alert" className="text-sm text-red-700">{pending.error.message}</p> : null}
        {pending.data?.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">Nothing waits for you. New requests appear here by themselves.</p> : null}
        <ul aria-label="Pending approvals" data-testid="pending-list" className="space-y-1">
          {(pending.data ?? []).map((a) => (
            <ApprovalRow key={a.id} approval={a} selected={current?.id === a.id} isNew={fresh.some((f) => f.id === a.id)} onSelect={() => open(a)} />
          ))}
        </ul>
        <h2 className="mt-6 mb-2 text-sm font-semibold">
          Decided
          {/* Folded on phones so the pending requests and the open one are not pushed below a long history. */}
          <button
            type="button"
            aria-expanded={historyShown}
            aria-controls="decided-list"
            onClick={() => setHistoryShown((v) => !v)}
            className="ml-2 rounded border border-slate-400 px-2 py-0.5 text-xs font-normal md:hidden dark:border-slate-600"
          >
            {historyShown ? "Hide" : `Show ${historyCount}`}
          </button>
        </h2>
        <ul id="decided-list" aria-label="Decided approvals" data-testid="history-list" className={`space-y-1 ${historyShown ? "" : "max-md:hidden"}`}>
          {(history.data ?? []).map((a) => (
            <ApprovalRow key={a.id} approval={a} selected={current?.id === a.id} isNew={false} onSelect={() => open(a)} />
          ))}
        </ul>
      </div>
      <div ref={detailPane} className={`min-w-0 scroll-mt-2 p-4 ${current ? "max-md:order-first max-md:border-b max-md:border-slate-200 max-md:dark:border-slate-800" : ""}`}>
        {current ? <ApprovalDetail key={current.id} approval={current} /> : <p className="text-slate-600 dark:text-slate-400">Choose a request in the list to see it and decide. Nothing opens by itself.</p>}
      </div>
    </div>
  );
}
