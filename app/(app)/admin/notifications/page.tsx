import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/page-guards";
import { listDeliveryLog } from "@/lib/notify/delivery-log";
import { DeliveryLog } from "@/components/admin/delivery-log";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Notifications" };

export default async function AdminNotificationsPage() {
  await requirePageUser("admin");
  const deliveries = await listDeliveryLog({ limit: 200 });
  return (
    <main className="mx-auto w-full min-w-0 max-w-[90rem] space-y-3 p-4 sm:p-6">
      <h1 className="text-xl font-semibold">Notifications</h1>
      <p className="max-w-3xl text-sm text-slate-600 dark:text-slate-400">
        Every approval request sent to owners outside the app (webhook, e-mail, chat), newest first, with its attempts.
        Failed sends are retried with growing delays; a request decided or expired before it went out is skipped.
      </p>
      <DeliveryLog
        deliveries={deliveries.map((d) => ({
          ...d,
          createdAt: d.createdAt.toISOString(),
          sentAt: d.sentAt?.toISOString() ?? null,
          nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
        }))}
      />
    </main>
  );
}
