import "server-only";
import { getDb, type Tx } from "./client";

export async function getLatestPolicyVersion({ tx }: { tx?: Tx } = {}) {
  return (tx ?? getDb()).policyVersion.findFirst({ orderBy: { version: "desc" } });
}

export async function getPolicyVersionNumber({ tx }: { tx?: Tx } = {}): Promise<number> {
  const row = await (tx ?? getDb()).policyVersion.findFirst({
    orderBy: { version: "desc" },
    select: { version: true },
  });
  return row?.version ?? 0;
}

export async function listPolicyVersions({ limit = 100 }: { limit?: number } = {}) {
  return getDb().policyVersion.findMany({
    orderBy: { version: "desc" },
    take: limit,
    select: { version: true, createdById: true, comment: true, createdAt: true },
  });
}

export async function getPolicyVersion({ version }: { version: number }) {
  return getDb().policyVersion.findUnique({ where: { version } });
}

/**
 * Saves a new version only if `baseVersion` is still the newest (optimistic concurrency): the primary key on
 * version makes a concurrent save of the same base fail instead of overwriting.
 */
export async function insertPolicyVersion({
  baseVersion,
  document,
  createdById,
  comment,
}: {
  baseVersion: number;
  document: unknown;
  createdById: string | null;
  comment?: string;
}): Promise<{ ok: true; version: number } | { ok: false; currentVersion: number }> {
  const db = getDb();
  const current = await getPolicyVersionNumber();
  if (current !== baseVersion) return { ok: false, currentVersion: current };
  try {
    await db.policyVersion.create({
      data: { version: baseVersion + 1, document: document as never, createdById, comment },
    });
    return { ok: true, version: baseVersion + 1 };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002")
      return { ok: false, currentVersion: await getPolicyVersionNumber() };
    throw error;
  }
}

/** Newest first, with documents: the history view diffs each version against the one before it. */
export async function listPolicyVersionsWithDocuments({ limit = 50 }: { limit?: number } = {}) {
  return getDb().policyVersion.findMany({ orderBy: { version: "desc" }, take: limit });
}
