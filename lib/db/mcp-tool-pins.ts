import "server-only";
// Pinned MCP tool definitions (model McpToolPin). Every write is conditional on what the caller saw (the hash it
// read), so two instances that notice the same change record it once, and an admin's accept applies only to the
// change they reviewed, never to one the server announced since.
import type { Prisma } from "@/lib/generated/sqlite/client";
import { getDb } from "./client";

export type PinRow = {
  toolName: string;
  definition: unknown;
  hash: string;
  pending: unknown;
  pendingHash: string | null;
  pendingAt: Date | null;
  acceptedById: string | null;
  acceptedAt: Date;
};

const select = {
  toolName: true,
  definition: true,
  hash: true,
  pending: true,
  pendingHash: true,
  pendingAt: true,
  acceptedById: true,
  acceptedAt: true,
} as const;
const asJson = (value: unknown) => value as Prisma.InputJsonValue;

export async function listToolPins({ serverId }: { serverId: string }): Promise<PinRow[]> {
  return getDb().mcpToolPin.findMany({ where: { serverId }, select });
}

/** Pins a tool seen for the first time; false when another instance pinned it first (the caller reads it again). */
export async function createToolPin({
  serverId,
  toolName,
  definition,
  hash,
}: {
  serverId: string;
  toolName: string;
  definition: unknown;
  hash: string;
}): Promise<boolean> {
  try {
    await getDb().mcpToolPin.create({ data: { serverId, toolName, definition: asJson(definition), hash } });
    return true;
  } catch (error) {
    if ((error as { code?: string }).code === "P2002") return false;
    throw error;
  }
}

/** Replaces the pinned definition by one that only tightens it, if the pin is still the one the caller read. */
export async function tightenToolPin({
  serverId,
  toolName,
  fromHash,
  definition,
  hash,
}: {
  serverId: string;
  toolName: string;
  fromHash: string;
  definition: unknown;
  hash: string;
}): Promise<boolean> {
  const result = await getDb().mcpToolPin.updateMany({
    where: { serverId, toolName, hash: fromHash },
    data: { definition: asJson(definition), hash, pendingHash: null, pendingAt: null },
  });
  return result.count === 1;
}

/** Holds a changed definition for review; true only for the instance that recorded this change first. */
export async function holdToolChange({
  serverId,
  toolName,
  pinnedHash,
  pending,
  pendingHash,
}: {
  serverId: string;
  toolName: string;
  pinnedHash: string;
  pending: unknown;
  pendingHash: string;
}): Promise<boolean> {
  const result = await getDb().mcpToolPin.updateMany({
    where: { serverId, toolName, hash: pinnedHash, OR: [{ pendingHash: null }, { pendingHash: { not: pendingHash } }] },
    data: { pending: asJson(pending), pendingHash, pendingAt: new Date() },
  });
  return result.count === 1;
}

/** The server went back to the pinned definition: nothing is pending any more. */
export async function clearToolChange({
  serverId,
  toolName,
  pinnedHash,
}: {
  serverId: string;
  toolName: string;
  pinnedHash: string;
}): Promise<boolean> {
  const result = await getDb().mcpToolPin.updateMany({
    where: { serverId, toolName, hash: pinnedHash, NOT: { pendingHash: null } },
    data: { pendingHash: null, pendingAt: null },
  });
  return result.count === 1;
}

/**
 * An admin accepts the change they reviewed (its hash): it becomes the pinned definition. Returns the row as it
 * was before, or null when that change is no longer the pending one.
 */
export async function acceptToolChange({
  serverId,
  toolName,
  pendingHash,
  actorId,
}: {
  serverId: string;
  toolName: string;
  pendingHash: string;
  actorId: string;
}): Promise<PinRow | null> {
  return getDb().$transaction(async (tx) => {
    const row = await tx.mcpToolPin.findFirst({ where: { serverId, toolName, pendingHash }, select });
    if (!row) return null;
    const result = await tx.mcpToolPin.updateMany({
      where: { serverId, toolName, pendingHash },
      data: {
        definition: asJson(row.pending),
        hash: pendingHash,
        pendingHash: null,
        pendingAt: null,
        acceptedById: actorId,
        acceptedAt: new Date(),
      },
    });
    return result.count === 1 ? row : null;
  });
}
