import "server-only";
import { getDb } from "./client";

export type AllowlistKind = "exec" | "tool";

export async function addAllowlistEntry({ kind, pattern, createdById, approvalId }: { kind: AllowlistKind; pattern: string; createdById: string | null; approvalId?: string }) {
  const db = getDb();
  const existing = await db.allowlistEntry.findUnique({ where: { kind_pattern: { kind, pattern } } });
  if (existing) return { entry: existing, created: false };
  try {
    return { entry: await db.allowlistEntry.create({ data: { kind, pattern, createdById, approvalId } }), created: true };
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") {
      return { entry: (await db.allowlistEntry.findUnique({ where: { kind_pattern: { kind, pattern } } }))!, created: false };
    }
    throw error;
  }
}

export async function listAllowlistEntries({ kind }: { kind?: AllowlistKind } = {}) {
  return getDb().allowlistEntry.findMany({ where: kind ? { kind } : undefined, orderBy: { createdAt: "desc" } });
}

export async function deleteAllowlistEntry({ id }: { id: string }) {
  const r = await getDb().allowlistEntry.deleteMany({ where: { id } });
  return r.count === 1;
}

export async function findAllowlistEntry({ id }: { id: string }) {
  return getDb().allowlistEntry.findUnique({ where: { id } });
}
