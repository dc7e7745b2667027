import "server-only";
import { getDb } from "./client";

export type SessionRow = {
  id: string;
  ownerId: string;
  title: string;
  mode: string;
  agentId: string | null;
  parentId: string | null;
  depth: number;
  createdAt: Date;
  updatedAt: Date;
};

export async function createSession({ ownerId, mode, title, agentId, parentId, depth = 0 }: {
  ownerId: string;
  mode: string;
  title?: string;
  agentId?: string | null;
  parentId?: string | null;
  depth?: number;
}): Promise<SessionRow> {
  return getDb().chatSession.create({ data: { ownerId, mode, title, agentId: agentId ?? null, parentId: parentId ?? null, depth } });
}

/** Only the owner's session: another member's id is indistinguishable from a missing one. */
export async function findOwnedSession({ sessionId, ownerId }: { sessionId: string; ownerId: string }): Promise<SessionRow | null> {
  return getDb().chatSession.findFirst({ where: { id: sessionId, ownerId } });
}

export async function listOwnedSessions({ ownerId, limit = 100, topLevelOnly = true }: { ownerId: string; limit?: number; topLevelOnly?: boolean }) {
  return getDb().chatSession.findMany({
    where: { ownerId, ...(topLevelOnly ? { parentId: null } : {}) },
    orderBy: { updatedAt: "desc" },
    take: limit,
  });
}

/** The owner's newest untouched top-level session (default title, this mode, no message, no run), if any. */
export async function findUntouchedSession({ ownerId, mode, title }: { ownerId: string; mode: string; title: string }): Promise<SessionRow | null> {
  return getDb().chatSession.findFirst({
    where: { ownerId, parentId: null, mode, title, activeRunId: null, messages: { none: {} }, runs: { none: {} } },
    orderBy: { createdAt: "desc" },
  });
}

/** A session's subagent sessions (children spawned by its runs), oldest first; only the owner's. */
export async function listChildSessions({ parentId, ownerId }: { parentId: string; ownerId: string }): Promise<SessionRow[]> {
  return getDb().chatSession.findMany({ where: { parentId, ownerId }, orderBy: { createdAt: "asc" } });
}

/** The raw stored mode, exactly as it is in the database (validated by the caller, fail-closed). */
export async function readSessionMode({ sessionId }: { sessionId: string }): Promise<string | null> {
  const row = await getDb().chatSession.findUnique({ where: { id: sessionId }, select: { mode: true } });
  return row?.mode ?? null;
}

export async function updateSessionMode({ sessionId, mode }: { sessionId: string; mode: string }) {
  return getDb().chatSession.update({ where: { id: sessionId }, data: { mode } });
}

export async function updateSessionTitle({ sessionId, title }: { sessionId: string; title: string }) {
  await getDb().chatSession.update({ where: { id: sessionId }, data: { title } });
}

export async function touchSession({ sessionId }: { sessionId: string }) {
  await getDb().chatSession.update({ where: { id: sessionId }, data: { updatedAt: new Date() } });
}

/** Unscoped lookup for server-side work that is not on behalf of a request (resuming a paused run). */
export async function findSessionById({ sessionId }: { sessionId: string }): Promise<SessionRow | null> {
  return getDb().chatSession.findUnique({ where: { id: sessionId } });
}
