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

const idList = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/**
 * A routed request (a routing rule matched, issue 31) is mailed to its rule's approvers only; otherwise every
 * active owner is asked. The chat and webhook targets are channels, not people: they are told either way.
 */
export async function enqueueNotificationsInTx(
  tx: Tx,
  approval: { id: string; requesterId: string; routeRule?: string | null; approverIds?: unknown },
): Promise<void> {
  const approvalId = approval.id;
  const rows: NewDelivery[] = [];
  if (webhookConfigured()) rows.push({ approvalId, channel: "webhook", target: "default" });
  if (slackConfigured()) rows.push({ approvalId, channel: "slack", target: "default" });
  if (emailConfigured()) {
    // Every active owner is asked, except the requester where four eyes forbid them to decide it.
    const selfAllowed = loadConfig().APPROVALS_SELF_DECISION === "allow";
    const routed = approval.routeRule ? new Set(idList(approval.approverIds)) : null;
    for (const owner of await listActiveOwners({ tx }))
      if ((selfAllowed || owner.id !== approval.requesterId) && (!routed || routed.has(owner.id)))
        rows.push({ approvalId, channel: "email", target: owner.id });
  }
  await insertDeliveries({ tx, rows });
}

/** An escalation adds owners to a request: they are mailed as the first approvers were (the others are not again). */
export async function enqueueEscalationInTx(
  tx: Tx,
  approval: { id: string; requesterId: string; approverIds?: unknown; escalateToIds?: unknown },
): Promise<void> {
  if (!emailConfigured()) return;
  const selfAllowed = loadConfig().APPROVALS_SELF_DECISION === "allow";
  const already = new Set(idList(approval.approverIds));
  const added = new Set(idList(approval.escalateToIds));
  const rows: NewDelivery[] = [];
  for (const owner of await listActiveOwners({ tx }))
    if (added.has(owner.id) && !already.has(owner.id) && (selfAllowed || owner.id !== approval.requesterId))
      rows.push({ approvalId: approval.id, channel: "email", target: owner.id });
  await insertDeliveries({ tx, rows });
}
