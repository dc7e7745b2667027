"use client";
// The confirmation page's content (app/decide/[id]): what is asked, by whom, the risk cues, and the buttons whose
// POST decides. Allow always is offered in the inbox only (it needs a signed-in session).
import { useState } from "react";

type Approval = {
  id: string;
  status: string;
  toolName: string;
  args: unknown;
  command: string | null;
  reason: string;
  requester: { email: string | null };
  risks: Array<{ kind: string; label: string; detail: string }>;
  expiresAt: string;
};

export function LinkDecisionForm({
  approval,
  token,
  approverEmail,
  inbox,
}: {
  approval: Approval;
  token: string | null;
  approverEmail: string;
  inbox: string;
}) {
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; text: string } | null>(null);
  const pending = approval.status === "pending" && new Date(approval.expiresAt) > new Date();

  async function decide(decision: "allow-once" | "deny") {
    setBusy(true);
    try {
      const response = await fetch(`/api/approvals/${encodeURIComponent(approval.id)}/link-decision`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          decision,
          ...(token ? { token } : {}),
          ...(reason.trim() ? { reason: reason.trim() } : {}),
        }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok)
        setOutcome({
          ok: true,
          text:
            decision === "deny" ? "Denied. The member's chat shows it." : "Allowed once. The member's agent goes on.",
        });
      else setOutcome({ ok: false, text: body?.error?.message ?? `refused (${response.status})` });
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label="Request" className="space-y-3 text-sm">
      <p>
        <strong>{approval.requester.email ?? "A member"}</strong> asks to run <strong>{approval.toolName}</strong>:
      </p>
      <pre className="overflow-x-auto whitespace-pre-wrap break-all rounded bg-slate-100 p-2 font-mono text-xs dark:bg-slate-900">
        {approval.command ?? JSON.stringify(approval.args, null, 2)}
      </pre>
      <p>
        <span className="text-slate-600 dark:text-slate-400">Why:</span> {approval.reason}
      </p>
      {approval.risks.length ? (
        <ul className="space-y-1" aria-label="Risk cues">
          {approval.risks.map((r) => (
            <li
              key={r.kind}
              className="rounded bg-amber-50 px-2 py-1 text-amber-950 dark:bg-amber-950 dark:text-amber-50"
            >
              <strong>{r.label}</strong>: {r.detail}
            </li>
          ))}
        </ul>
      ) : null}
      <p className="text-slate-600 dark:text-slate-400">
        Deciding as {approverEmail}. Expires {new Date(approval.expiresAt).toUTCString()}.
      </p>
      {outcome ? (
        <p
          role="status"
          className={`rounded-md p-2 ${outcome.ok ? "bg-emerald-50 text-emerald-950 dark:bg-emerald-950 dark:text-emerald-50" : "bg-red-50 text-red-950 dark:bg-red-950 dark:text-red-50"}`}
        >
          {outcome.text}
        </p>
      ) : null}
      {pending && !outcome?.ok ? (
        <div className="space-y-2">
          <label className="block">
            <span className="text-slate-600 dark:text-slate-400">Reason (optional, shown to the member)</span>
            <textarea
              value={reason}
              onChange={(e) => setReason(e.target.value)}
              maxLength={2000}
              rows={2}
              className="mt-1 w-full rounded border border-slate-300 p-2 dark:border-slate-700 dark:bg-slate-950"
            />
          </label>
          <div className="flex flex-wrap gap-2">
            <button
              type="button"
              disabled={busy}
              onClick={() => decide("allow-once")}
              className="rounded-md bg-emerald-700 px-3 py-2 font-medium text-white disabled:opacity-50"
            >
              Allow once
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => decide("deny")}
              className="rounded-md bg-red-700 px-3 py-2 font-medium text-white disabled:opacity-50"
            >
              Deny
            </button>
            <a href={inbox} className="rounded-md border border-slate-300 px-3 py-2 dark:border-slate-700">
              Allow always… (in the inbox, signed in)
            </a>
          </div>
        </div>
      ) : !outcome ? (
        <p className="rounded-md bg-slate-100 p-2 dark:bg-slate-900">
          This request is {approval.status === "pending" ? "expired" : approval.status}: nothing to decide.
        </p>
      ) : null}
    </section>
  );
}
