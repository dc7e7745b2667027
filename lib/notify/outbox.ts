import "server-only";
// Which notifications a new request gets, written in the request's own transaction (the outbox): a request
// never commits without them, so a crash right after the commit still notifies (lib/notify/sender.ts).
import type { Tx } from "@/lib/db/client";
import { insertDeliveries, type NewDelivery } from "@/lib/db/approval-deliveries";
import { loadConfig } from "@/lib/config";
import { listActiveOwners } from "@/lib/db/users";
import { emailConfigured } from "./email";
import { slackConfigured } from "./slack";
import { webhookConfigured } from "./webhook";

export async function enqueueNotificationsInTx(tx: Tx, approval: { id: string; requesterId: string }): Promise<void> {
  const approvalId = approval.id;
  const rows: NewDelivery[] = [];
  if (webhookConfigured()) rows.push({ approvalId, channel: "webhook", target: "default" });
  if (slackConfigured()) rows.push({ approvalId, channel: "slack", target: "default" });
  if (emailConfigured()) {
    // Every active owner is asked, except the requester where four eyes forbid them to decide it.
    const selfAllowed = loadConfig().APPROVALS_SELF_DECISION === "allow";
    for (const owner of await listActiveOwners({ tx })) if (selfAllowed || owner.id !== approval.requesterId) rows.push({ approvalId, channel: "email", target: owner.id });
  }
  await insertDeliveries({ tx, rows });
}
