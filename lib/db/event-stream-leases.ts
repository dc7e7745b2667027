import "server-only";
// Leases of open event streams (issue 29): the per-user stream cap counts these rows, so it holds across instances
// (lib/events/stream-cap.ts). Each instance renews its own rows; a crashed instance's rows expire.
import { getDb } from "./client";

export async function insertStreamLease({
  id,
  userId,
  instanceId,
  openedAt,
  expiresAt,
}: {
  id: string;
  userId: string;
  instanceId: string;
  openedAt: Date;
  expiresAt: Date;
}): Promise<void> {
  await getDb().eventStreamLease.create({
    data: { id, userId, instanceId, openedAt, expiresAt },
    select: { id: true },
  });
}

/**
 * Deletes the user's live leases past the newest `max` (and their expired ones); returns the ids deleted that were
 * live. Deliberately not one transaction with the insert before it: each insert commits first, so the trim after
 * the last insert to commit sees every lease, and no two concurrent openings can both stay under the cap by not
 * seeing each other. Two trims deleting the same rows is harmless: they order the rows the same way.
 */
export async function trimStreamLeases({
  userId,
  max,
  now,
}: {
  userId: string;
  max: number;
  now: Date;
}): Promise<string[]> {
  const db = getDb();
  await db.eventStreamLease.deleteMany({ where: { userId, expiresAt: { lte: now } } });
  const excess = await db.eventStreamLease.findMany({
    where: { userId, expiresAt: { gt: now } },
    orderBy: [{ openedAt: "desc" }, { id: "desc" }],
    skip: max,
    select: { id: true },
  });
  if (excess.length === 0) return [];
  const ids = excess.map((row) => row.id);
  await db.eventStreamLease.deleteMany({ where: { id: { in: ids } } });
  return ids;
}

/** Bound parameters per statement stay under the SQLite driver adapter's limit (999: 1,000 held leases in one statement were refused). */
const CHUNK = 500;

/**
 * One statement (per 500 streams): the leases this instance holds live until `expiresAt`. Returns the ids still
 * there; a held id missing was deleted past the cap (by any instance) or expired, and its stream must close. Only held
 * ids are renewed, so a row whose delete failed when its stream closed still expires.
 */
export async function renewStreamLeases({
  instanceId,
  ids,
  expiresAt,
}: {
  instanceId: string;
  ids: string[];
  expiresAt: Date;
}): Promise<Set<string>> {
  const db = getDb();
  const present = new Set<string>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    await db.eventStreamLease.updateMany({
      where: { instanceId, id: { in: chunk }, expiresAt: { gt: new Date() } },
      data: { expiresAt },
    });
    const rows = await db.eventStreamLease.findMany({
      where: { instanceId, id: { in: chunk }, expiresAt: { gt: new Date() } },
      select: { id: true },
    });
    for (const row of rows) present.add(row.id);
  }
  return present;
}

export async function deleteStreamLease({ id }: { id: string }): Promise<void> {
  await getDb().eventStreamLease.deleteMany({ where: { id } });
}

/** Leases of crashed instances, gone past their expiry. */
export async function deleteExpiredStreamLeases({ now }: { now: Date }): Promise<number> {
  return (await getDb().eventStreamLease.deleteMany({ where: { expiresAt: { lte: now } } })).count;
}

export async function countLiveStreamLeases({ userId, now }: { userId: string; now: Date }): Promise<number> {
  return getDb().eventStreamLease.count({ where: { userId, expiresAt: { gt: now } } });
}
