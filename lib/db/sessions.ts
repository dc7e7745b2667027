import "server-only";
import { getDb, transact } from "./client";
import { insertEvent } from "./events";
import { appendMessageTx } from "./messages";

export type SessionRow = {
  id: string;
  ownerId: string;
  title: string;
  mode: string;
  agentId: string | null;
  /** The configured model id (`provider:model`); null: the default model. */
  model: string | null;
  parentId: string | null;
  depth: number;
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
};

export async function createSession({
  ownerId,
  mode,
  title,
  agentId,
  model,
  parentId,
  depth = 0,
}: {
  ownerId: string;
  mode: string;
  title?: string;
  agentId?: string | null;
  model?: string | null;
  parentId?: string | null;
  depth?: number;
}): Promise<SessionRow> {
  return getDb().chatSession.create({
    data: { ownerId, mode, title, agentId: agentId ?? null, model: model ?? null, parentId: parentId ?? null, depth },
  });
}

/**
 * The owner's one session for an outside client (`clientKey`: its token or OAuth client), made on first use. Its
 * mode and agent follow the client's binding on every call (a token's mode is re-checked against the owner's grants
 * where the session's mode is read, fail-closed).
 */
export async function upsertClientSession({
  ownerId,
  clientKey,
  title,
  mode,
  agentId,
}: {
  ownerId: string;
  clientKey: string;
  title: string;
  mode: string;
  agentId: string | null;
}): Promise<SessionRow> {
  const where = { ownerId_clientKey: { ownerId, clientKey } };
  try {
    return await getDb().chatSession.upsert({
      where,
      create: { ownerId, clientKey, title, mode, agentId },
      update: { mode, agentId },
    });
  } catch (error) {
    // Two first calls at once: the other made it.
    if ((error as { code?: string }).code !== "P2002") throw error;
    return getDb().chatSession.update({ where, data: { mode, agentId } });
  }
}

/** Outside MCP clients' sessions (one per owner and token or OAuth grant), the most recently seen first. */
export async function listClientSessions({ limit }: { limit: number }) {
  const rows = await getDb().chatSession.findMany({
    where: { clientKey: { not: null } },
    orderBy: { updatedAt: "desc" },
    take: limit,
    select: {
      id: true,
      clientKey: true,
      title: true,
      mode: true,
      agentId: true,
      updatedAt: true,
      owner: { select: { id: true, email: true } },
    },
  });
  return rows.map((row) => ({ ...row, clientKey: row.clientKey ?? "" }));
}

/** Only the owner's session, not deleted: another member's id is indistinguishable from a missing one. */
export async function findOwnedSession({
  sessionId,
  ownerId,
}: {
  sessionId: string;
  ownerId: string;
}): Promise<SessionRow | null> {
  return getDb().chatSession.findFirst({ where: { id: sessionId, ownerId, deletedAt: null } });
}

export async function listOwnedSessions({
  ownerId,
  limit = 100,
  topLevelOnly = true,
}: {
  ownerId: string;
  limit?: number;
  topLevelOnly?: boolean;
}) {
  return getDb().chatSession.findMany({
    where: { ownerId, deletedAt: null, clientKey: null, ...(topLevelOnly ? { parentId: null } : {}) },
    orderBy: { updatedAt: "desc" },
    take: limit,
  });
}

/** The owner's newest untouched top-level session (default title, this mode, no message, no run), if any. */
export async function findUntouchedSession({
  ownerId,
  mode,
  title,
  agentId,
  model,
}: {
  ownerId: string;
  mode: string;
  title: string;
  agentId: string | null;
  model: string | null;
}): Promise<SessionRow | null> {
  return getDb().chatSession.findFirst({
    where: {
      ownerId,
      parentId: null,
      deletedAt: null,
      clientKey: null,
      mode,
      title,
      agentId,
      model,
      activeRunId: null,
      messages: { none: {} },
      runs: { none: {} },
    },
    orderBy: { createdAt: "desc" },
  });
}

/** A session's subagent sessions (children spawned by its runs), oldest first; only the owner's. */
export async function listChildSessions({
  parentId,
  ownerId,
}: {
  parentId: string;
  ownerId: string;
}): Promise<SessionRow[]> {
  return getDb().chatSession.findMany({ where: { parentId, ownerId }, orderBy: { createdAt: "asc" } });
}

/** The raw stored mode, exactly as it is in the database (validated by the caller, fail-closed). */
export async function readSessionMode({ sessionId }: { sessionId: string }): Promise<string | null> {
  const row = await getDb().chatSession.findUnique({ where: { id: sessionId }, select: { mode: true } });
  return row?.mode ?? null;
}

/**
 * The mode, the transcript's marker line (a system line, which the model never reads) and the event that tells
 * the session's other tabs commit together: no tab sees a switch without its marker, or a marker without it.
 */
export async function updateSessionMode({
  sessionId,
  mode,
  marker,
}: {
  sessionId: string;
  mode: string;
  marker: { content: string; parts: unknown };
}) {
  return transact(async (tx) => {
    const row = await tx.chatSession.update({ where: { id: sessionId }, data: { mode } });
    await appendMessageTx({ tx, sessionId, message: { role: "system", content: marker.content, parts: marker.parts } });
    await insertEvent({ tx, type: "session.updated", scope: "session", sessionId, payload: { change: "mode", mode } });
    return row;
  });
}

/** Renames a session and tells its open tabs, together. */
export async function updateSessionTitle({ sessionId, title }: { sessionId: string; title: string }) {
  await transact(async (tx) => {
    await tx.chatSession.update({ where: { id: sessionId }, data: { title } });
    await insertEvent({
      tx,
      type: "session.updated",
      scope: "session",
      sessionId,
      payload: { change: "title", title },
    });
  });
}

/** Soft delete (Undo restores it): false when the owner has no such live session. Tells its open tabs. */
export async function markSessionDeleted({
  sessionId,
  ownerId,
}: {
  sessionId: string;
  ownerId: string;
}): Promise<boolean> {
  return transact(async (tx) => {
    const { count } = await tx.chatSession.updateMany({
      where: { id: sessionId, ownerId, deletedAt: null, activeRunId: null },
      data: { deletedAt: new Date() },
    });
    if (count === 1)
      await insertEvent({ tx, type: "session.updated", scope: "session", sessionId, payload: { change: "deleted" } });
    return count === 1;
  });
}

/** Undo of a delete: false when the owner has no such deleted session. */
export async function restoreDeletedSession({
  sessionId,
  ownerId,
}: {
  sessionId: string;
  ownerId: string;
}): Promise<boolean> {
  const { count } = await getDb().chatSession.updateMany({
    where: { id: sessionId, ownerId, deletedAt: { not: null } },
    data: { deletedAt: null },
  });
  return count === 1;
}

export async function touchSession({ sessionId }: { sessionId: string }) {
  await getDb().chatSession.update({ where: { id: sessionId }, data: { updatedAt: new Date() } });
}

/** Unscoped lookup for server-side work that is not on behalf of a request (resuming a paused run). */
export async function findSessionById({ sessionId }: { sessionId: string }): Promise<SessionRow | null> {
  return getDb().chatSession.findUnique({ where: { id: sessionId } });
}

/** The outside clients' sessions among these (clientKey set), with the client's name (the session title). */
/** Chat titles by session id (records show a chat by its title, not its id). */
export async function findSessionTitles({ sessionIds }: { sessionIds: string[] }): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await getDb().chatSession.findMany({
    where: { id: { in: [...new Set(sessionIds)] } },
    select: { id: true, title: true },
  });
  return new Map(rows.map((r) => [r.id, r.title]));
}

export async function findClientSessionNames({ sessionIds }: { sessionIds: string[] }): Promise<Map<string, string>> {
  if (sessionIds.length === 0) return new Map();
  const rows = await getDb().chatSession.findMany({
    where: { id: { in: [...new Set(sessionIds)] }, clientKey: { not: null } },
    select: { id: true, title: true },
  });
  return new Map(rows.map((r) => [r.id, r.title]));
}
