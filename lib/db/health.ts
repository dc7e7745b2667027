import "server-only";
// What the readiness probe and the metrics read from the database (lib/ops): cheap, read-only queries.
import { readdirSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "@/lib/config";
import { getDb } from "./client";

/** One round trip: the database answers queries. */
export async function pingDatabase(): Promise<void> {
  await getDb().$queryRawUnsafe("SELECT 1");
}

/** The migrations this build ships for the provider in use (prisma/<provider>/migrations, read from the app's root). */
export function listShippedMigrations(root = process.cwd()): string[] {
  const dir = path.join(
    root,
    "prisma",
    loadConfig().databaseProvider === "postgres" ? "postgres" : "sqlite",
    "migrations",
  );
  return readdirSync(/*turbopackIgnore: true*/ dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Names of the migrations the database records as applied (finished, not rolled back). */
export async function listAppliedMigrations(): Promise<string[]> {
  const rows = await getDb().$queryRawUnsafe<Array<{ migration_name: string }>>(
    `SELECT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL`,
  );
  return rows.map((r) => String(r.migration_name));
}

/**
 * The shipped migrations this database has not applied, or null when the database does not answer. A database
 * that answers but has no migrations table (never migrated) misses them all.
 */
export async function listMissingMigrations(): Promise<string[] | null> {
  try {
    await pingDatabase();
  } catch {
    return null;
  }
  const applied = new Set(await listAppliedMigrations().catch(() => []));
  return listShippedMigrations().filter((name) => !applied.has(name));
}

/** Approval requests waiting for an owner (not yet past their expiry). */
export async function countPendingApprovals({ now = new Date() }: { now?: Date } = {}): Promise<number> {
  return getDb().approval.count({ where: { status: "pending", expiresAt: { gt: now } } });
}
