import "server-only";
// Which notifications a new request gets, written in the request's own transaction (the outbox): a request
// never commits without them, so a crash right after the commit still notifies (lib/notify/sender.ts).
import type { Tx } from "@/lib/db/client";
import { insertDeliveries, type NewDelivery } from "@/lib/db/approval-deliveries";
import { webhookConfigured } from "./webhook";

export async function enqueueNotificationsInTx(tx: Tx, approvalId: string): Promise<void> {
  const rows: NewDelivery[] = [];
  if (webhookConfigured()) rows.push({ approvalId, channel: "webhook", target: "default" });
  await insertDeliveries({ tx, rows });
}
