import "server-only";
// Admin recovery codes (lib/auth/recovery-codes.ts): stored as hashes, each usable once.
import { getDb } from "./client";

/** The user's unused codes are replaced by these (a new set voids the old one). */
export async function replaceRecoveryCodes({ userId, codeHashes }: { userId: string; codeHashes: string[] }): Promise<void> {
  await getDb().$transaction([getDb().recoveryCode.deleteMany({ where: { userId } }), getDb().recoveryCode.createMany({ data: codeHashes.map((codeHash) => ({ userId, codeHash })) })]);
}

/** Marks the code used; true only for the one caller that found it unused (a replay or a race gets false). */
export async function consumeRecoveryCode({ userId, codeHash }: { userId: string; codeHash: string }): Promise<boolean> {
  const { count } = await getDb().recoveryCode.updateMany({ where: { userId, codeHash, usedAt: null }, data: { usedAt: new Date() } });
  return count === 1;
}
