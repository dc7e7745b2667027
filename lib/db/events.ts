import "server-only";
// The durable event log behind the live streams (an outbox: rows are written in the same transaction as the
// change they announce), and PostgreSQL LISTEN/NOTIFY to wake other instances. The NOTIFY is not sent from
// here: a trigger on the event log sends it for every insert (migration 20261124130000_event_notify_trigger),
// with the highest seq written, and PostgreSQL delivers it only when the writer's transaction commits.
import { Client } from "pg";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import type { Prisma } from "@/lib/generated/sqlite/client";
import { getDb, isPostgres, type Tx } from "./client";
import { processSlots } from "@/lib/process-singleton";

export const EVENT_CHANNEL = "toolgate_events";

export type EventRow = {
  seq: number;
  type: string;
  scope: string;
  sessionId: string | null;
  payload: unknown;
  createdAt: Date;
};
export type NewEvent = { type: string; scope: string; sessionId?: string | null; payload: unknown };

export async function insertEvent({ type, scope, sessionId, payload, tx }: NewEvent & { tx?: Tx }): Promise<EventRow> {
  return (tx ?? getDb()).eventLog.create({
    data: { type, scope, sessionId: sessionId ?? null, payload: payload as Prisma.InputJsonValue },
  });
}

/** Several events of one transaction in one statement, returned in seq order. */
export async function insertEvents({ events, tx }: { events: NewEvent[]; tx: Tx }): Promise<EventRow[]> {
  if (events.length === 0) return [];
  const rows = await tx.eventLog.createManyAndReturn({
    data: events.map((e) => ({
      type: e.type,
      scope: e.scope,
      sessionId: e.sessionId ?? null,
      payload: e.payload as Prisma.InputJsonValue,
    })),
  });
  return rows.sort((a, b) => a.seq - b.seq);
}

export async function listEventsAfter({ seq, limit = 500 }: { seq: number; limit?: number }): Promise<EventRow[]> {
  return getDb().eventLog.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: "asc" }, take: limit });
}

export async function latestEventSeq(): Promise<number> {
  const row = await getDb().eventLog.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
  return row?.seq ?? 0;
}

const RECONNECT_MIN_MS = 250;
const RECONNECT_MAX_MS = 10_000;

// Whether a LISTEN connection is up (the readiness probe asks); on globalThis, as every bundle's copy must agree.
const globalForListen = processSlots<{ toolgateEventListeners?: number }>();

/** True while a LISTEN connection of this process is open; null on SQLite (no NOTIFY: the poll carries events). */
export function isListeningForEvents(): boolean | null {
  return isPostgres() ? (globalForListen.toolgateEventListeners ?? 0) > 0 : null;
}

/**
 * A dedicated connection listening for NOTIFY on PostgreSQL; null on SQLite (one instance, in-process bus).
 * onNotify gets the highest seq the notifying commit wrote, or undefined when that is not known (a payload
 * that is not a number). A lost connection is logged and re-opened with back-off; onReconnect (by default onNotify)
 * runs after each reconnect, so the tailer reads whatever was committed while nobody listened.
 */
export async function listenForEvents(
  onNotify: (seq?: number) => void,
  onReconnect: () => void = () => onNotify(),
): Promise<(() => Promise<void>) | null> {
  if (!isPostgres()) return null;
  let closed = false;
  let current: Client | null = null;
  let delay = RECONNECT_MIN_MS;
  const open = async (): Promise<void> => {
    const client = new Client({ connectionString: loadConfig().DATABASE_URL });
    let lost = false;
    const onLost = (error?: unknown) => {
      if (lost || closed) return;
      lost = true;
      if (current === client)
        globalForListen.toolgateEventListeners = (globalForListen.toolgateEventListeners ?? 1) - 1;
      current = null;
      log("warn", "event_listen_lost", { error: error ? String(error) : "connection ended" });
      client.end().catch(() => undefined);
      scheduleReconnect();
    };
    client.on("error", onLost);
    client.on("end", () => onLost());
    client.on("notification", (message) => {
      const seq = Number(message.payload);
      onNotify(Number.isSafeInteger(seq) ? seq : undefined);
    });
    await client.connect();
    await client.query(`LISTEN ${EVENT_CHANNEL}`);
    current = client;
    globalForListen.toolgateEventListeners = (globalForListen.toolgateEventListeners ?? 0) + 1;
  };
  const scheduleReconnect = () => {
    const wait = delay;
    delay = Math.min(delay * 2, RECONNECT_MAX_MS);
    setTimeout(() => {
      if (closed) return;
      open().then(
        () => {
          delay = RECONNECT_MIN_MS;
          log("info", "event_listen_reconnected", {});
          onReconnect();
        },
        (error) => {
          log("warn", "event_listen_reconnect_failed", { error: String(error), retryInMs: delay });
          scheduleReconnect();
        },
      );
    }, wait).unref();
  };
  await open();
  return async () => {
    closed = true;
    if (current) globalForListen.toolgateEventListeners = (globalForListen.toolgateEventListeners ?? 1) - 1;
    await current?.end().catch(() => undefined);
  };
}

/** Test hook: the backend pids of this database's LISTEN connections (a test kills them to see the reconnect). */
export async function listListenerPids(): Promise<number[]> {
  if (!isPostgres()) return [];
  const rows = await getDb().$queryRawUnsafe<Array<{ pid: number }>>(
    `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN ${EVENT_CHANNEL}%' AND pid <> pg_backend_pid()`,
  );
  return rows.map((r) => Number(r.pid));
}
