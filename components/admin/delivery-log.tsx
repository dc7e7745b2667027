// The notification delivery log (app/(app)/admin/notifications): one row per notification and target.
export type DeliveryRow = {
  id: string;
  approvalId: string;
  channel: string;
  to: string | null;
  status: string;
  attempts: number;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  nextAttemptAt: string | null;
  sentAt: string | null;
};

const STATUS_STYLE: Record<string, string> = {
  sent: "bg-emerald-100 text-emerald-900 dark:bg-emerald-900 dark:text-emerald-50",
  pending: "bg-amber-100 text-amber-900 dark:bg-amber-900 dark:text-amber-50",
  failed: "bg-red-100 text-red-900 dark:bg-red-900 dark:text-red-50",
  skipped: "bg-slate-100 text-slate-800 dark:bg-slate-800 dark:text-slate-100",
};

const time = (iso: string | null) => (iso ? new Date(iso).toISOString().replace("T", " ").slice(0, 19) + " UTC" : "");

export function DeliveryLog({ deliveries }: { deliveries: DeliveryRow[] }) {
  if (deliveries.length === 0) {
    return (
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Nothing sent yet. Set APPROVAL_WEBHOOK_URL and APPROVAL_WEBHOOK_SECRET, or SMTP_URL, to notify owners.
      </p>
    );
  }
  return (
    <div className="overflow-x-auto rounded border border-slate-200 dark:border-slate-800">
      <table className="w-full text-left text-sm" aria-label="Notification deliveries">
        <thead className="bg-slate-50 text-xs uppercase text-slate-600 dark:bg-slate-900 dark:text-slate-400">
          <tr>
            <th className="px-3 py-2">Requested</th>
            <th className="px-3 py-2">Channel</th>
            <th className="px-3 py-2">To</th>
            <th className="px-3 py-2">State</th>
            <th className="px-3 py-2">Attempts</th>
            <th className="px-3 py-2">Last answer</th>
            <th className="px-3 py-2">Approval</th>
          </tr>
        </thead>
        <tbody>
          {deliveries.map((d) => (
            <tr key={d.id} className="border-t border-slate-200 dark:border-slate-800">
              <td className="whitespace-nowrap px-3 py-1.5">{time(d.createdAt)}</td>
              <td className="px-3 py-1.5">{d.channel}</td>
              <td className="break-all px-3 py-1.5">{d.to ?? "—"}</td>
              <td className="px-3 py-1.5">
                <span className={`rounded px-1.5 py-0.5 text-xs font-medium ${STATUS_STYLE[d.status] ?? ""}`}>
                  {d.status}
                </span>
                {d.status === "sent" && d.sentAt ? (
                  <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">{time(d.sentAt)}</span>
                ) : null}
                {d.status === "pending" && d.nextAttemptAt ? (
                  <span className="ml-2 text-xs text-slate-600 dark:text-slate-400">next {time(d.nextAttemptAt)}</span>
                ) : null}
              </td>
              <td className="px-3 py-1.5">{d.attempts}</td>
              <td className="px-3 py-1.5">{d.lastError ?? (d.lastStatus ? `HTTP ${d.lastStatus}` : "")}</td>
              <td className="px-3 py-1.5 font-mono text-xs">{d.approvalId}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
