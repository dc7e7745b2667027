import "server-only";
// The outbox of approval notifications (lib/notify): rows written in the request's transaction, claimed by one
// sender at a time with a conditional update (a second instance's claim of the same row finds it taken), and
// settled only by the claim's holder. The rows are also the delivery log the admin reads.
import { getDb, type Tx } from "./client";

export type DeliveryChannel = "webhook" | "email" | "slack";
export type DeliveryStatus = "pending" | "sent" | "failed" | "skipped";
export type NewDelivery = { approvalId: string; channel: DeliveryChannel; target: string };

export async function insertDeliveries({ tx, rows }: { tx: Tx; rows: NewDelivery[] }): Promise<void> {
  if (rows.length) await tx.approvalDelivery.createMany({ data: rows });
}

/** Rows that are due and not held by a live claim, oldest first. */
export async function listDueDeliveries({ now = new Date(), limit = 20 }: { now?: Date; limit?: number } = {}) {
  return getDb().approvalDelivery.findMany({
    where: {
      status: "pending",
      nextAttemptAt: { lte: now },
      OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
    },
    orderBy: { nextAttemptAt: "asc" },
    take: limit,
    select: { id: true },
  });
}

/**
 * Takes a row for one attempt: exactly one of any number of concurrent claimers wins (the conditional update is
 * re-checked under the row's lock). The attempt counts at once, so a sender that dies mid-way still used it;
 * its claim lapses after leaseMs and another sender tries again.
 */
export async function claimDelivery({
  id,
  owner,
  leaseMs,
  now = new Date(),
}: {
  id: string;
  owner: string;
  leaseMs: number;
  now?: Date;
}): Promise<boolean> {
  const r = await getDb().approvalDelivery.updateMany({
    where: {
      id,
      status: "pending",
      nextAttemptAt: { lte: now },
      OR: [{ claimedUntil: null }, { claimedUntil: { lt: now } }],
    },
    data: { claimedBy: owner, claimedUntil: new Date(now.getTime() + leaseMs), attempts: { increment: 1 } },
  });
  return r.count === 1;
}

export async function findDelivery({ id }: { id: string }) {
  return getDb().approvalDelivery.findUnique({ where: { id } });
}

/** Settles an attempt; only the claim's holder may (false: the claim lapsed and another sender took the row). */
export async function settleDelivery({
  id,
  owner,
  status,
  nextAttemptAt,
  lastStatus,
  lastError,
  now = new Date(),
}: {
  id: string;
  owner: string;
  status: DeliveryStatus;
  nextAttemptAt?: Date;
  lastStatus?: number | null;
  lastError?: string | null;
  now?: Date;
}): Promise<boolean> {
  const r = await getDb().approvalDelivery.updateMany({
    where: { id, claimedBy: owner, status: "pending" },
    data: {
      status,
      claimedBy: null,
      claimedUntil: null,
      lastStatus: lastStatus ?? null,
      lastError: lastError ?? null,
      ...(nextAttemptAt ? { nextAttemptAt } : {}),
      ...(status === "sent" ? { sentAt: now } : {}),
    },
  });
  return r.count === 1;
}

export async function listDeliveries({ limit = 100, approvalId }: { limit?: number; approvalId?: string } = {}) {
  return getDb().approvalDelivery.findMany({
    where: approvalId ? { approvalId } : undefined,
    orderBy: { createdAt: "desc" },
    take: limit,
  });
}

/** Records a decision link's nonce as used; false when it was used before (the primary key refuses it). */
export async function insertLinkUse({
  nonce,
  approvalId,
  userId,
}: {
  nonce: string;
  approvalId: string;
  userId: string;
}): Promise<boolean> {
  try {
    await getDb().approvalLinkUse.create({ data: { nonce, approvalId, userId } });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") return false;
    throw error;
  }
}
