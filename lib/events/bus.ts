import "server-only";
// Live events (approvals, run updates) with no state held by one process: every event is a row in the
// event log first. One tailer per process reads new rows in order and fans them out to subscribers; it is
// woken by local publishes, by PostgreSQL NOTIFY from other instances, and by a slow poll as a safety net.
import { loadConfig } from "@/lib/config";
import {
  insertEvent,
  isListeningForEvents,
  latestEventSeq,
  listEventsAfter,
  listenForEvents,
  type EventRow,
} from "@/lib/db/events";
import { detached, log } from "@/lib/log";
import { processSlots } from "@/lib/process-singleton";

export type AppEvent = EventRow;
export type EventListener = (event: AppEvent) => void;

const GAP_WAIT_MS = 2_000;
const GAP_RETRY_MS = 25;
const PAGE = 500;
/** How many delivered rows the tailer remembers, to tell them from rows that reuse their numbers (resync). */
const RECENT = 1_024;
const fingerprint = (row: EventRow) => `${row.type}|${row.sessionId ?? ""}|${row.createdAt.getTime()}`;

class EventTailer {
  private listeners = new Set<EventListener>();
  private lastSeq = -1;
  private running: Promise<void> | null = null;
  private again = false;
  private started: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private closeListen: (() => Promise<void>) | null = null;
  private stopped = false;
  private gapSince: number | null = null;
  /** Seqs this process has written in a transaction not yet known to have committed or failed. */
  private pending = new Set<number>();
  /** The last rows delivered (seq → fingerprint), in delivery order, so in seq order. */
  private recent = new Map<number, string>();

  async start(): Promise<void> {
    // Detached: the timers and the LISTEN connection started here outlive the request or turn that first asks.
    this.started ??= detached(async () => {
      this.lastSeq = await latestEventSeq();
      this.closeListen = await listenForEvents(
        (seq) => this.wake(seq),
        () => void this.resync(),
      ).catch((error) => (log("warn", "event_listen_failed", { error: String(error) }), null));
      this.timer = setInterval(() => this.wake(), loadConfig().EVENT_POLL_MS);
      this.timer.unref();
    }).catch((error: unknown) => {
      // Not kept: a start that failed (the database was down) is tried again by the next caller.
      this.started = null;
      throw error;
    });
    return this.started;
  }

  /** Ends the polling and the LISTEN connection: a process that points lib at another database (tests) stops the old one. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.closeListen?.().catch(() => undefined);
  }

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /**
   * Rows this process has just committed: when they follow the last delivered row without a gap (and no read is
   * under way that could deliver them too), they are delivered as they are, without reading them back; otherwise
   * the tailer reads as for any wake. On SQLite (one writer at a time) that is nearly every commit.
   */
  committed(rows: EventRow[]): void {
    for (const row of rows) this.pending.delete(row.seq);
    const contiguous = this.lastSeq >= 0 && rows.every((row, i) => row.seq === this.lastSeq + 1 + i);
    if (this.running || !contiguous) {
      this.wake(rows.at(-1)?.seq);
      return;
    }
    this.gapSince = null;
    for (const row of rows) this.deliver(row);
  }

  /**
   * Rows of a transaction about to commit. Its NOTIFY (every listener gets it, this process's too) can arrive
   * before the commit's own answer: a wake that announces one of these is this process's commit, delivered by
   * committed() without a read. Measured: 77% of outcomes were read back when the NOTIFY came first.
   */
  expect(rows: EventRow[]): void {
    for (const row of rows) this.pending.add(row.seq);
  }

  /** The transaction failed, or its commit's outcome is unknown: whatever committed is read as for any wake. */
  abandon(rows: EventRow[]): void {
    for (const row of rows) this.pending.delete(row.seq);
    if (rows.length && this.lastSeq >= 0) this.wake();
  }

  /**
   * After the LISTEN connection came back (the database may have restarted): a crash can lose the tail of the
   * log that this process had already delivered (results commit without waiting for the disk), and PostgreSQL then
   * hands out those seqs again. The tailer steps back to the last delivered row the log still holds as it was, so
   * rows that reuse the lost numbers are delivered, not skipped as seen.
   */
  async resync(): Promise<void> {
    try {
      // The recent rows still in the log as they were delivered, from the oldest remembered on: the tail after the
      // first one that is gone or different was lost (rows written since may reuse its numbers).
      const oldest = this.recent.keys().next().value;
      if (this.lastSeq >= 0 && oldest !== undefined) {
        let kept = oldest - 1;
        for (const row of await listEventsAfter({ seq: oldest - 1, limit: RECENT })) {
          if (row.seq > this.lastSeq || this.recent.get(row.seq) !== fingerprint(row)) break;
          kept = row.seq;
        }
        if (kept < this.lastSeq) {
          log("warn", "event_log_rewound", { from: this.lastSeq, to: kept });
          this.lastSeq = kept;
          for (const seq of [...this.recent.keys()]) if (seq > kept) this.recent.delete(seq);
        }
      }
    } catch (error) {
      log("warn", "event_tail_failed", { error: String(error) });
    }
    this.wake();
  }

  private deliver(row: EventRow): void {
    this.lastSeq = row.seq;
    this.recent.set(row.seq, fingerprint(row));
    if (this.recent.size > RECENT) this.recent.delete(this.recent.keys().next().value!);
    for (const listener of this.listeners) {
      try {
        listener(row);
      } catch (error) {
        log("warn", "event_listener_failed", { error: String(error) });
      }
    }
  }

  /**
   * Reads everything new, in order; concurrent wakes coalesce into one more pass. `seq` is the highest event the
   * wake announces: one this tailer has delivered already (its own commit, read right after the commit) costs no
   * query. A row with a lower seq committed later still wakes it (it is above lastSeq until delivered).
   */
  wake(seq?: number): void {
    if (this.stopped) return;
    if (seq !== undefined && (seq <= this.lastSeq || this.pending.has(seq))) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = (async () => {
      do {
        this.again = false;
        try {
          for (;;) {
            const rows = await listEventsAfter({ seq: this.lastSeq, limit: PAGE });
            if (rows.length === 0) break;
            let stalled = false;
            for (const row of rows) {
              if (row.seq <= this.lastSeq) continue; // delivered meanwhile (committed rows)
              // On PostgreSQL sequence numbers are handed out before commit, so a row with a lower seq can
              // become visible after a higher one (two publishers at once). Moving past the gap would lose it
              // for good: wait briefly for it, and only skip it when it never appears (a rolled-back insert).
              if (row.seq > this.lastSeq + 1 && this.lastSeq >= 0) {
                const since = (this.gapSince ??= Date.now());
                if (Date.now() - since < GAP_WAIT_MS) {
                  stalled = true;
                  break;
                }
              }
              this.gapSince = null;
              this.deliver(row);
            }
            if (stalled) {
              setTimeout(() => this.wake(), GAP_RETRY_MS).unref();
              break;
            }
            // A short page was everything committed when it was read; a commit after that wakes this tailer again
            // (its publish or its NOTIFY sets `again`), so asking once more would only read nothing.
            if (rows.length < PAGE) break;
          }
        } catch (error) {
          log("warn", "event_tail_failed", { error: String(error) });
        }
      } while (this.again);
      this.running = null;
    })();
  }
}

const globalForBus = processSlots<{ toolgateTailer?: EventTailer }>();

function tailer(): EventTailer {
  return (globalForBus.toolgateTailer ??= new EventTailer());
}

/** Stops and forgets this process's tailer (tests that move lib to another database); the next use starts anew. */
export async function stopEventTailer(): Promise<void> {
  const current = globalForBus.toolgateTailer;
  delete globalForBus.toolgateTailer;
  await current?.stop();
}

export async function publishEvent(event: {
  type: string;
  scope: "approvals" | "session" | "account";
  sessionId?: string | null;
  payload: unknown;
}): Promise<AppEvent> {
  const row = await insertEvent(event);
  const t = tailer();
  await t.start();
  t.wake();
  return row;
}

/**
 * Fan-out after commit: events written inside a transaction (the outbox) are delivered now; `rows`, the rows the
 * transaction wrote (in seq order), spare reading them back when nothing came between.
 */
export async function eventsCommitted(rows?: EventRow[]): Promise<void> {
  const t = tailer();
  await t.start().catch((error: unknown) => {
    t.abandon(rows ?? []);
    throw error;
  });
  if (rows?.length) t.committed(rows);
  else t.wake();
}

/** Rows written in a transaction about to commit (the outbox): see EventTailer.expect. */
export function eventsPending(rows: EventRow[]): void {
  tailer().expect(rows);
}

/** The transaction that wrote these rows failed or its outcome is unknown. */
export function eventsAbandoned(rows: EventRow[]): void {
  tailer().abandon(rows);
}

export async function subscribeEvents(listener: EventListener): Promise<() => void> {
  const t = tailer();
  await t.start();
  return t.subscribe(listener);
}

export function subscriberCount(): number {
  return tailer().subscriberCount;
}

/** For the readiness probe: the tailer started (it reads the log) and, on PostgreSQL, its LISTEN connection is up. */
export async function eventBusStatus(): Promise<{ ok: true } | { ok: false; reason: string }> {
  try {
    await tailer().start();
  } catch {
    return { ok: false, reason: "the event log cannot be read" };
  }
  return isListeningForEvents() === false
    ? { ok: false, reason: "not listening for other instances' events (LISTEN connection down)" }
    : { ok: true };
}

export { listEventsAfter };
