import "server-only";
// The delivery log the admin reads: each notification with its channel, where it went (the webhook's host, an
// owner's e-mail; never a URL's path or query, which may hold a token), its state, attempts and last error.
import { loadConfig } from "@/lib/config";
import { listDeliveries } from "@/lib/db/approval-deliveries";
import { findUserEmails } from "@/lib/db/users";

function hostOf(url: string | undefined): string | null {
  try {
    return url ? new URL(url).host : null;
  } catch {
    return null;
  }
}

export async function listDeliveryLog({ limit = 100, approvalId }: { limit?: number; approvalId?: string } = {}) {
  const rows = await listDeliveries({ limit, approvalId });
  const emails = await findUserEmails({ userIds: rows.filter((r) => r.channel === "email").map((r) => r.target) });
  const webhookHost = hostOf(loadConfig().APPROVAL_WEBHOOK_URL);
  const slackHost = hostOf(loadConfig().SLACK_WEBHOOK_URL);
  return rows.map((r) => ({
    id: r.id,
    approvalId: r.approvalId,
    channel: r.channel,
    to:
      r.channel === "email"
        ? (emails.get(r.target) ?? "(deleted user)")
        : r.channel === "webhook"
          ? webhookHost
          : r.channel === "slack"
            ? slackHost
            : r.target,
    status: r.status,
    attempts: r.attempts,
    lastStatus: r.lastStatus,
    lastError: r.lastError,
    createdAt: r.createdAt,
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt : null,
    sentAt: r.sentAt,
  }));
}
