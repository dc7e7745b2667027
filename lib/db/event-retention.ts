import "server-only";
// Bounds on the event log (issue 29, finding 2): rows older than the retention window are pruned in the background,
// and a stream resuming from a Last-Event-ID learns cheaply whether a replay is possible and bounded, before reading
// any of it. Kept apart from lib/db/events.ts, whose insert path is on the hot path.
import { getDb } from "./client";

/**
 * Deletes up to `batch` rows created before `before`, oldest first, always keeping the newest row of the log: the
 * log's end (latestEventSeq) is where fresh streams and the tailer start, and must not fall back to 0 on a quiet
 * system. Returns how many rows went.
 */
export async function pruneEventsBefore({ before, batch = 5_000 }: { before: Date; batch?: number }): Promise<number> {
  const db = getDb();
  const newest = await db.eventLog.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
  if (!newest) return 0;
  const doomed = await db.eventLog.findMany({
    where: { createdAt: { lt: before }, seq: { lt: newest.seq } },
    orderBy: { seq: "asc" },
    take: batch,
    select: { seq: true },
  });
  if (doomed.length === 0) return 0;
  const { count } = await db.eventLog.deleteMany({
    where: { seq: { lte: doomed[doomed.length - 1]!.seq }, createdAt: { lt: before } },
  });
  return count;
}

export type ReplayPlan = { kind: "replay" } | { kind: "snapshot"; reason: "pruned" | "outside_window" | "too_many" };

/**
 * Whether the events after `since` can be replayed: not when some were pruned already (the oldest row kept is past
 * `since + 1`), not when the first of them is older than the window, and not when there are more than `maxRows` of
 * them (a replay that large costs the server more than the client re-reading current state). Three indexed reads,
 * none of which walks more than `maxRows` index entries.
 */
export async function planReplay({
  since,
  maxRows,
  windowStart,
}: {
  since: number;
  maxRows: number;
  windowStart: Date;
}): Promise<ReplayPlan> {
  const db = getDb();
  const oldest = await db.eventLog.findFirst({ orderBy: { seq: "asc" }, select: { seq: true } });
  if (!oldest) return { kind: "replay" };
  if (since < oldest.seq - 1) return { kind: "snapshot", reason: "pruned" };
  const first = await db.eventLog.findFirst({
    where: { seq: { gt: since } },
    orderBy: { seq: "asc" },
    select: { createdAt: true },
  });
  if (!first) return { kind: "replay" };
  if (first.createdAt < windowStart) return { kind: "snapshot", reason: "outside_window" };
  const beyond = await db.eventLog.findFirst({
    where: { seq: { gt: since } },
    orderBy: { seq: "asc" },
    skip: maxRows,
    select: { seq: true },
  });
  return beyond ? { kind: "snapshot", reason: "too_many" } : { kind: "replay" };
}
