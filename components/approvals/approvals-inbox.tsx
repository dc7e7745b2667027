"use client";
import { useEffect, useRef, useState } from "react";
import { ApprovalDetail } from "./approval-detail";
import { ApprovalRow, moveFocus } from "./approval-row";
import { BulkDenyBar } from "./bulk-deny-bar";
import { InboxFiltersForm } from "./inbox-filters";
import { useApprovals, type Approval, type InboxFilters } from "./use-approvals";

/**
 * The owner's inbox. What is open changes only when the owner opens something: a request that arrives is
 * marked "New" in the list and announced, never opened; a decision leaves the decided request open (showing
 * its outcome) instead of advancing to the next one. The open request is kept even after it leaves the list.
 * On a phone the open request comes first (above the lists, scrolled to when the owner taps a row) with its
 * decision buttons in a bar that stays on screen, and the decided history is folded away until asked for.
 */
export function ApprovalsInbox({ openId }: { openId?: string } = {}) {
  const [filters, setFilters] = useState<InboxFilters>({});
  const [decidedStatus, setDecidedStatus] = useState("decided");
  const { pending, history } = useApprovals(filters, decidedStatus);
  const [checked, setChecked] = useState<ReadonlySet<string>>(new Set());
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
  const historyCount = history.total ? `${history.total.count}${history.total.capped ? "+" : ""}` : "0";
  const pendingCount = pending.total ? `${pending.total.count}${pending.total.capped ? "+" : ""}` : "0";
  // Only requests still listed as pending can be chosen: a decided one drops out of the choice by itself.
  const chosen = (pending.data ?? []).filter((a) => checked.has(a.id)).map((a) => a.id);
  const check = (id: string, on: boolean) =>
    setChecked((c) => (on ? new Set([...c, id]) : new Set([...c].filter((x) => x !== id))));
  return (
    <div className="grid flex-1 grid-cols-[22rem_1fr] content-start gap-0 max-md:grid-cols-1">
      <div className="min-w-0 border-r border-slate-200 p-3 dark:border-slate-800 max-md:border-r-0 max-md:border-b">
        <h2 className="mb-2 text-sm font-semibold">
          Pending <span data-testid="pending-count">{pendingCount}</span>
        </h2>
        <InboxFiltersForm onChange={setFilters} />
        <BulkDenyBar
          ids={chosen}
          shown={(pending.data ?? []).map((a) => a.id)}
          onChoose={(ids) => setChecked(new Set(ids))}
        />
        <p aria-live="polite" data-testid="new-requests" className="sr-only">
          {fresh.length ? `${fresh.length} new request${fresh.length === 1 ? "" : "s"} in the list` : ""}
        </p>
        {pending.isLoading ? <p className="text-sm text-slate-600 dark:text-slate-400">Loading…</p> : null}
        {pending.error ? (
          <p role="alert" className="text-sm text-red-700">
            {pending.error.message}
          </p>
        ) : null}
        {pending.data?.length === 0 ? (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Nothing waits for you. New requests appear here by themselves.
          </p>
        ) : null}
        {/* Arrow keys or j/k move through the list; Enter opens; o, a, d decide the open request. */}
        <ul aria-label="Pending approvals" data-testid="pending-list" className="space-y-1" onKeyDown={moveFocus}>
          {(pending.data ?? []).map((a) => (
            <ApprovalRow
              key={a.id}
              approval={a}
              selected={current?.id === a.id}
              isNew={fresh.some((f) => f.id === a.id)}
              onSelect={() => open(a)}
              checked={checked.has(a.id)}
              onCheck={(on) => check(a.id, on)}
            />
          ))}
        </ul>
        <LoadMore list={pending} testId="pending-more" />
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
          <label className="ml-2 text-xs font-normal">
            <span className="sr-only">Which decided requests</span>
            <select
              value={decidedStatus}
              onChange={(e) => setDecidedStatus(e.target.value)}
              className="rounded border border-slate-400 bg-white px-1 py-0.5 dark:border-slate-600 dark:bg-slate-900"
            >
              <option value="decided">all</option>
              <option value="approved">allowed</option>
              <option value="denied">denied</option>
              <option value="expired">expired or withdrawn</option>
            </select>
          </label>
        </h2>
        <div id="decided-list" className={historyShown ? "" : "max-md:hidden"}>
          <ul aria-label="Decided approvals" data-testid="history-list" className="space-y-1" onKeyDown={moveFocus}>
            {(history.data ?? []).map((a) => (
              <ApprovalRow
                key={a.id}
                approval={a}
                selected={current?.id === a.id}
                isNew={false}
                onSelect={() => open(a)}
              />
            ))}
          </ul>
          <LoadMore list={history} testId="history-more" />
        </div>
      </div>
      <div
        ref={detailPane}
        className={`min-w-0 scroll-mt-2 p-4 ${current ? "max-md:order-first max-md:border-b max-md:border-slate-200 max-md:dark:border-slate-800" : ""}`}
      >
        {current ? (
          <ApprovalDetail key={current.id} approval={current} />
        ) : (
          <p className="text-slate-600 dark:text-slate-400">
            Choose a request in the list to see it and decide. Nothing opens by itself.
          </p>
        )}
      </div>
    </div>
  );
}

/** The next page of a list, from the server's cursor: every request is reachable, a page at a time. */
function LoadMore({ list, testId }: { list: ReturnType<typeof useApprovals>["pending"]; testId: string }) {
  if (!list.hasMore) return null;
  const shown = list.data?.length ?? 0;
  const total = list.total ? `${list.total.count}${list.total.capped ? "+" : ""}` : "?";
  return (
    <button
      type="button"
      data-testid={testId}
      disabled={list.loadingMore}
      onClick={list.loadMore}
      className="mt-2 w-full rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-600"
    >
      {list.loadingMore ? "Loading…" : `Load more (${shown} of ${total} shown)`}
    </button>
  );
}
