"use client";
import { useEffect, useState } from "react";
import { useApprovals, useDecide, type Approval } from "./use-approvals";

const STATUS_LABEL: Record<Approval["status"], string> = { pending: "pending", approved: "approved", denied: "denied", expired: "expired" };

function ApprovalDetail({ approval }: { approval: Approval }) {
  const decide = useDecide();
  const [reason, setReason] = useState("");
  const pending = approval.status === "pending";
  const send = (decision: "allow-once" | "allow-always" | "deny") => decide.mutate({ id: approval.id, decision, reason });

  useEffect(() => {
    if (!pending) return;
    // One keystroke away: o = allow once, a = allow always, d = deny (not while typing a reason).
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (["TEXTAREA", "INPUT", "SELECT"].includes(target.tagName) || target.isContentEditable)) return;
      if (e.metaKey || e.ctrlKey || e.altKey || e.repeat || decide.isPending) return;
      if (e.key === "o") send("allow-once");
      if (e.key === "a") send("allow-always");
      if (e.key === "d") send("deny");
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  });

  return (
    <section aria-label="Approval detail" data-testid="approval-detail" className="space-y-3">
      <h2 className="text-lg font-semibold">
        <span className="font-mono">{approval.toolName}</span> requested by {approval.requester.email ?? approval.requester.id}
      </h2>
      <dl className="grid grid-cols-[8rem_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="text-slate-500">Session</dt>
        <dd className="font-mono text-xs">{approval.sessionId}</dd>
        <dt className="text-slate-500">Why approval</dt>
        <dd>{approval.reason}</dd>
        <dt className="text-slate-500">Status</dt>
        <dd data-testid="approval-status">
          {STATUS_LABEL[approval.status]}
          {approval.decision ? ` (${approval.decision})` : ""}
          {approval.resolvedBy ? ` by ${approval.resolvedBy.email}` : ""}
          {approval.resolveReason ? ` — ${approval.resolveReason}` : ""}
        </dd>
        <dt className="text-slate-500">Requested</dt>
        <dd>{new Date(approval.createdAt).toLocaleString()}</dd>
        {pending ? (
          <>
            <dt className="text-slate-500">Expires</dt>
            <dd>{new Date(approval.expiresAt).toLocaleString()}</dd>
          </>
        ) : approval.resolvedAt ? (
          <>
            <dt className="text-slate-500">{approval.status === "expired" ? "Expired" : "Decided"}</dt>
            <dd>{new Date(approval.resolvedAt).toLocaleString()}</dd>
          </>
        ) : null}
      </dl>
      {approval.command !== null ? (
        <div>
          <div className="text-xs font-semibold uppercase text-slate-500">Command</div>
          {/* Wrapped, never scrolled sideways: every character of the command is in view when deciding. */}
          <pre data-testid="approval-command" className="whitespace-pre-wrap break-all rounded bg-slate-900 p-3 font-mono text-sm text-slate-100">{approval.command}</pre>
          <div className="mt-1 text-xs text-slate-600 dark:text-slate-400">
            Analysis:{" "}
            {!approval.analysis
              ? "not analysed"
              : approval.analysis.ok
                ? `ok — executables: ${(approval.analysis.segments ?? []).map((s) => s.executable).join(", ")}`
                : `not analysable: ${approval.analysis.reason ?? "unknown reason"}`}
          </div>
        </div>
      ) : null}
      <div>
        <div className="text-xs font-semibold uppercase text-slate-500">Arguments</div>
        <pre className="whitespace-pre-wrap break-all rounded bg-slate-100 p-3 font-mono text-xs dark:bg-slate-900">{JSON.stringify(approval.args, null, 2)}</pre>
      </div>
      {pending ? (
        <div className="space-y-2">
          <label className="block text-sm">
            <span className="font-medium">Reason (optional, shown to the requester on deny)</span>
            <textarea value={reason} onChange={(e) => setReason(e.target.value)} rows={2} className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900" />
          </label>
          <div className="flex flex-wrap gap-2">
            <button type="button" disabled={decide.isPending} onClick={() => send("allow-once")} className="rounded-md bg-emerald-700 px-3 py-2 text-sm font-medium text-white">
              Allow once <kbd className="ml-1 text-xs opacity-80">o</kbd>
            </button>
            <button type="button" disabled={decide.isPending} onClick={() => send("allow-always")} className="rounded-md border border-emerald-700 px-3 py-2 text-sm font-medium text-emerald-800 dark:text-emerald-300">
              Allow always <kbd className="ml-1 text-xs opacity-80">a</kbd>
            </button>
            <button type="button" disabled={decide.isPending} onClick={() => send("deny")} className="rounded-md bg-red-700 px-3 py-2 text-sm font-medium text-white">
              Deny <kbd className="ml-1 text-xs opacity-80">d</kbd>
            </button>
          </div>
          {decide.error ? <p role="alert" className="text-sm text-red-700 dark:text-red-300">{decide.error.message}</p> : null}
          {decide.data?.refused.length ? <p className="text-sm text-amber-800 dark:text-amber-300">Not added to the allowlist: {decide.data.refused.join("; ")}</p> : null}
        </div>
      ) : null}
    </section>
  );
}

function ApprovalRow({ approval, selected, onSelect }: { approval: Approval; selected: boolean; onSelect: () => void }) {
  return (
    <li>
      <button
        type="button"
        onClick={onSelect}
        aria-pressed={selected}
        data-testid="approval-row"
        className={`w-full rounded-md px-3 py-2 text-left text-sm ${selected ? "bg-slate-100 dark:bg-slate-800" : "hover:bg-slate-50 dark:hover:bg-slate-900"}`}
      >
        <div className="flex items-center justify-between gap-2">
          <span className="font-mono font-medium">{approval.toolName}</span>
          <span className="text-xs text-slate-500">{new Date(approval.createdAt).toLocaleTimeString()}</span>
        </div>
        <div className="truncate font-mono text-xs text-slate-600 dark:text-slate-400">{approval.command ?? JSON.stringify(approval.args)}</div>
        <div className="text-xs text-slate-500">
          {approval.requester.email} · {STATUS_LABEL[approval.status]}
          {approval.decision ? ` (${approval.decision})` : ""}
        </div>
      </button>
    </li>
  );
}

export function ApprovalsInbox() {
  const { pending, history } = useApprovals();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const all = [...(pending.data ?? []), ...(history.data ?? [])];
  const selected = all.find((a) => a.id === selectedId) ?? pending.data?.[0] ?? null;
  return (
    <div className="grid flex-1 grid-cols-[22rem_1fr] gap-0 max-md:grid-cols-1">
      <div className="min-w-0 border-r border-slate-200 p-3 dark:border-slate-800 max-md:border-r-0 max-md:border-b">
        <h2 className="mb-2 text-sm font-semibold">
          Pending <span data-testid="pending-count">{pending.data?.length ?? 0}</span>
        </h2>
        {pending.isLoading ? <p className="text-sm text-slate-500">Loading…</p> : null}
        {pending.error ? <p role="alert" className="text-sm text-red-700">{pending.error.message}</p> : null}
        {pending.data?.length === 0 ? <p className="text-sm text-slate-600 dark:text-slate-400">Nothing waits for you. New requests appear here by themselves.</p> : null}
        <ul aria-label="Pending approvals" data-testid="pending-list" className="space-y-1">
          {(pending.data ?? []).map((a) => (
            <ApprovalRow key={a.id} approval={a} selected={selected?.id === a.id} onSelect={() => setSelectedId(a.id)} />
          ))}
        </ul>
        <h2 className="mt-6 mb-2 text-sm font-semibold">Decided</h2>
        <ul aria-label="Decided approvals" data-testid="history-list" className="space-y-1">
          {(history.data ?? []).map((a) => (
            <ApprovalRow key={a.id} approval={a} selected={selected?.id === a.id} onSelect={() => setSelectedId(a.id)} />
          ))}
        </ul>
      </div>
      <div className="min-w-0 p-4">{selected ? <ApprovalDetail key={selected.id} approval={selected} /> : <p className="text-slate-600 dark:text-slate-400">Choose a request to see its details.</p>}</div>
    </div>
  );
}
