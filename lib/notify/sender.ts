import "server-only";
// Sends what the outbox holds. Every instance runs a sender; a row is claimed before it is sent (one claimer
// wins), settled by its holder, and retried with doubling delays after a failure that may pass. A request that
// was decided or expired meanwhile is not announced any more (skipped).
import { randomBytes } from "node:crypto";
import os from "node:os";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { subscribeEvents } from "@/lib/events/bus";
import { claimDelivery, findDelivery, listDueDeliveries, settleDelivery } from "@/lib/db/approval-deliveries";
import type { Attempt } from "./http-post";
import { outsideApproval } from "./payload";
import { sendEmail } from "./email";
import { sendSlack } from "./slack";
import { sendWebhook } from "./webhook";
import { processSlots } from "@/lib/process-singleton";

const globalForSender = processSlots<{ toolgateNotifyOwner?: string; toolgateNotifySender?: boolean }>();
const OWNER =
  (globalForSender.toolgateNotifyOwner ??= `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`);
/** Longer than any one attempt (a 10 s POST): a live sender never loses its claim mid-way. */
const CLAIM_MS = 60_000;
const MAX_DELAY_MS = 5 * 60_000;
const POLL_MS = 1_000;

export function retryDelayMs(attempts: number): number {
  return Math.min(MAX_DELAY_MS, loadConfig().NOTIFY_RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1));
}

async function attempt(
  channel: string,
  deliveryId: string,
  approvalId: string,
  target: string,
): Promise<Attempt | "skip"> {
  const approval = await outsideApproval(approvalId);
  if (!approval || approval.status !== "pending" || new Date(approval.expiresAt) <= new Date()) return "skip";
  if (channel === "webhook") return sendWebhook({ deliveryId, approval });
  if (channel === "email") return sendEmail({ userId: target, approval });
  if (channel === "slack") return sendSlack({ approval });
  return { ok: false, retry: false, status: null, error: `unknown channel ${channel}` };
}

/** One delivery, if this sender wins its claim. */
export async function deliverOne(
  id: string,
  owner = OWNER,
): Promise<"sent" | "retry" | "failed" | "skipped" | "not-claimed"> {
  if (!(await claimDelivery({ id, owner, leaseMs: CLAIM_MS }))) return "not-claimed";
  const row = (await findDelivery({ id }))!;
  let result: Attempt | "skip";
  try {
    result = await attempt(row.channel, row.id, row.approvalId, row.target);
  } catch (error) {
    log("warn", "notify_attempt_failed", { id, channel: row.channel, error: String(error) });
    result = { ok: false, retry: true, status: null, error: "internal error while sending" };
  }
  if (result === "skip") {
    await settleDelivery({ id, owner, status: "skipped", lastError: "the request was no longer pending" });
    return "skipped";
  }
  if (result.ok) {
    await settleDelivery({ id, owner, status: "sent", lastStatus: result.status });
    return "sent";
  }
  const last = !result.retry || row.attempts >= loadConfig().NOTIFY_MAX_ATTEMPTS;
  await settleDelivery({
    id,
    owner,
    status: last ? "failed" : "pending",
    nextAttemptAt: last ? undefined : new Date(Date.now() + retryDelayMs(row.attempts)),
    lastStatus: result.status,
    lastError: result.error,
  });
  return last ? "failed" : "retry";
}

/** Everything due now; several senders (instances) may run this at once. */
export async function deliverDue(owner = OWNER): Promise<number> {
  const due = await listDueDeliveries();
  const results = await Promise.all(due.map((d) => deliverOne(d.id, owner)));
  return results.filter((r) => r !== "not-claimed").length;
}

export function startNotificationSender(): void {
  if (globalForSender.toolgateNotifySender) return;
  globalForSender.toolgateNotifySender = true;
  let running = false;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    deliverDue()
      .catch((error) => log("warn", "notify_sender_failed", { error: String(error) }))
      .finally(() => {
        running = false;
        if (again) {
          again = false;
          run();
        }
      });
  };
  const timer = setInterval(run, POLL_MS);
  timer.unref();
  // Woken by the commit of a request (or an escalation) on any instance, so it need not wait for the next poll;
  // the poll stays for rows whose retry falls due and for a missed wake-up.
  subscribeEvents((event) => {
    if (event.type === "approval.requested" || event.type === "approval.escalated") run();
  }).catch((error) => log("warn", "notify_sender_wake_failed", { error: String(error) }));
}
