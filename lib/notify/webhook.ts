import "server-only";
// The generic signed webhook (APPROVAL_WEBHOOK_URL / APPROVAL_WEBHOOK_SECRET): the request as JSON, signed over the
// timestamp and the exact body. The delivery id is in the body and a header: a receiver de-duplicates by it,
// because a sender that dies after the POST but before recording it makes another instance send it again.
import { loadConfig } from "@/lib/config";
import { postJson, type Attempt } from "./http-post";
import type { OutsideApproval } from "./payload";
import { SIGNATURE_HEADER, signBody } from "./signature";

export function webhookConfigured(): boolean {
  const c = loadConfig();
  return Boolean(c.APPROVAL_WEBHOOK_URL && c.APPROVAL_WEBHOOK_SECRET);
}

export async function sendWebhook({
  deliveryId,
  approval,
}: {
  deliveryId: string;
  approval: OutsideApproval;
}): Promise<Attempt> {
  const { APPROVAL_WEBHOOK_URL: url, APPROVAL_WEBHOOK_SECRET: secret } = loadConfig();
  if (!url || !secret) return { ok: false, retry: false, status: null, error: "webhook no longer configured" };
  const body = JSON.stringify({ type: "approval.requested", deliveryId, approval });
  return postJson(url, body, { [SIGNATURE_HEADER]: signBody(secret, body), "X-Toolgate-Delivery": deliveryId });
}
