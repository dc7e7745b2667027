import "server-only";
// The durable event log behind the live streams, and PostgreSQL LISTEN/NOTIFY to wake other instances.
import { Client } from "pg";
import { loadConfig } from "@/lib/config";
import { getDb, isPostgres } from "./client";

export const EVENT_CHANNEL = "toolgate_events";

export type EventRow = { seq: number; type: string; scope: string; sessionId: string | null; payload: unknown; createdAt: Date };

export async function insertEvent({ type, scope, sessionId, payload }: { type: string; scope: string; sessionId?: string | null; payload: unknown }): Promise<EventRow> {
  const row = await getDb().eventLog.create({ data: { type, scope, sessionId: sessionId ?? null, payload: payload as never } });
  if (isPostgres()) await getDb().$executeRawUnsafe(`SELECT pg_notify('${EVENT_CHANNEL}', '${row.seq}')`);
  return row;
}

export async function listEventsAfter({ seq, limit = 500 }: { seq: number; limit?: number }): Promise<EventRow[]> {
  return getDb().eventLog.findMany({ where: { seq: { gt: seq } }, orderBy: { seq: "asc" }, take: limit });
}

export async function latestEventSeq(): Promise<number> {
  const row = await getDb().eventLog.findFirst({ orderBy: { seq: "desc" }, select: { seq: true } });
  return row?.seq ?? 0;
}

/** A dedicated connection listening for NOTIFY on PostgreSQL; null on SQLite (one instance, in-process bus). */
export async function listenForEvents(onNotify: () => void): Promise<(() => Promise<void>) | null> {
  if (!isPostgres()) return null;
  const client = new Client({ connectionString: loadConfig().DATABASE_URL });
  client.on("error", () => undefined);
  await client.connect();
  client.on("notification", () => onNotify());
  await client.query(`LISTEN ${EVENT_CHANNEL}`);
  return async () => {
    await client.end().catch(() => undefined);
  };
}
