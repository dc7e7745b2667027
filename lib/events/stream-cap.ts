import "server-only";
// At most EVENT_STREAMS_PER_USER open event streams per user, across every instance (issue 29, finding 2): one
// member opening hundreds of streams held as many sockets, replays and fan-out targets, and slowed every other
// member. Each open stream has a lease row (lib/db/event-stream-leases.ts); a new stream past the cap deletes that
// user's oldest leases wherever they live. A deleted lease held here closes its stream at once; one held by another
// instance closes at that instance's next renewal (every third of EVENT_STREAM_LEASE_SECONDS), which finds its row
// gone. An evicted stream gets a last event telling its client not to reconnect (components/use-event-source.ts
// honours it), so two tabs never take turns evicting each other. The newest wins because it is the tab the person is
// looking at. A crashed instance's leases expire, and stop counting.
import os from "node:os";
import { randomBytes } from "node:crypto";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import {
  deleteExpiredStreamLeases,
  deleteStreamLease,
  insertStreamLease,
  renewStreamLeases,
  trimStreamLeases,
} from "@/lib/db/event-stream-leases";
import { processSlots } from "@/lib/process-singleton";

const encoder = new TextEncoder();
/** The last event of an evicted stream; `retry` keeps a client that ignores it from coming back for an hour. */
export const EVICTED = encoder.encode(
  `retry: 3600000\nevent: stream.closed\ndata: ${JSON.stringify({ reason: "too_many_streams", reconnect: false })}\n\n`,
);

export type CappedStream = { evict: () => void };
type Held = { userId: string; stream: CappedStream; inserted: boolean };

// One per process (lib/process-singleton.ts): every copy of this module shares one instance name, one set of held
// leases and one renewal timer.
const globalForCap = processSlots<{
  toolgateStreamLeases?: Map<string, Held>;
  toolgateStreamInstanceId?: string;
  toolgateStreamLeaseCounter?: number;
  toolgateStreamRenewal?: NodeJS.Timeout;
  toolgateStreamRenewing?: Promise<boolean>;
}>();
const held = (globalForCap.toolgateStreamLeases ??= new Map<string, Held>());
/** This instance's name in lease rows: host and pid first, for a person reading the table. */
export const STREAM_INSTANCE_ID =
  (globalForCap.toolgateStreamInstanceId ??= `${os.hostname()}:${process.pid}:${randomBytes(4).toString("hex")}`);

const leaseMs = () => loadConfig().EVENT_STREAM_LEASE_SECONDS * 1000;

/** Sorts by opening time, then by the order this instance opened them (two in one millisecond). */
function newLeaseId(now: number): string {
  const n = (globalForCap.toolgateStreamLeaseCounter = ((globalForCap.toolgateStreamLeaseCounter ?? 0) + 1) % 36 ** 6);
  return `${now.toString(36).padStart(9, "0")}${n.toString(36).padStart(6, "0")}${randomBytes(6).toString("hex")}`;
}

function evictHere(id: string, why: string): void {
  const found = held.get(id);
  if (!found) return;
  held.delete(id);
  log("info", "event_stream_evicted", { userId: found.userId, why });
  found.stream.evict();
}

/**
 * Counts a new stream of `userId` against the cap, evicting that user's oldest streams past it (here at once,
 * elsewhere at their next renewal); resolves to the release. A database failure rejects: the caller closes the stream.
 */
export async function admitStream(
  userId: string,
  stream: CappedStream,
  max = loadConfig().EVENT_STREAMS_PER_USER,
): Promise<() => void> {
  const now = Date.now();
  const id = newLeaseId(now);
  const entry: Held = { userId, stream, inserted: false };
  held.set(id, entry);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    held.delete(id);
    deleteStreamLease({ id }).catch((error: unknown) =>
      log("warn", "event_stream_lease_release_failed", { error: String(error) }),
    );
  };
  try {
    await insertStreamLease({
      id,
      userId,
      instanceId: STREAM_INSTANCE_ID,
      openedAt: new Date(now),
      expiresAt: new Date(now + leaseMs()),
    });
    entry.inserted = true;
    ensureRenewal();
    for (const gone of await trimStreamLeases({ userId, max, now: new Date() })) evictHere(gone, "cap");
  } catch (error) {
    release();
    throw error;
  }
  return release;
}

function ensureRenewal(): void {
  if (globalForCap.toolgateStreamRenewal) return;
  const timer = setInterval(() => void renewStreamLeasesNow(), Math.max(1_000, Math.floor(leaseMs() / 3)));
  timer.unref();
  globalForCap.toolgateStreamRenewal = timer;
}

/**
 * Renews every lease held here (one statement), and closes the streams whose lease is gone: deleted past the cap by
 * another instance, or expired while this instance could not renew (fail closed). Also clears crashed instances'
 * expired rows. Runs one at a time; the timer stops once nothing is held. False when the database refused it.
 */
export function renewStreamLeasesNow(): Promise<boolean> {
  globalForCap.toolgateStreamRenewing ??= (async () => {
    try {
      const ids = [...held].filter(([, h]) => h.inserted).map(([id]) => id);
      if (held.size === 0 && globalForCap.toolgateStreamRenewal) {
        clearInterval(globalForCap.toolgateStreamRenewal);
        globalForCap.toolgateStreamRenewal = undefined;
      }
      if (ids.length > 0) {
        const present = await renewStreamLeases({
          instanceId: STREAM_INSTANCE_ID,
          ids,
          expiresAt: new Date(Date.now() + leaseMs()),
        });
        for (const id of ids) if (!present.has(id)) evictHere(id, "lease_gone");
      }
      await deleteExpiredStreamLeases({ now: new Date() });
      return true;
    } catch (error) {
      log("warn", "event_stream_lease_renewal_failed", { error: String(error) });
      return false;
    } finally {
      globalForCap.toolgateStreamRenewing = undefined;
    }
  })();
  return globalForCap.toolgateStreamRenewing;
}

/** Open streams of a user on this instance (tests, diagnostics). */
export function openStreamCount(userId: string): number {
  let n = 0;
  for (const h of held.values()) if (h.userId === userId) n++;
  return n;
}
