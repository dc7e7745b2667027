import "server-only";
// Admin recovery codes (lib/auth/recovery-codes.ts): stored as hashes, each usable once.
import { getDb } from "./client";

/** The user's unused codes are replaced by these (a new set voids the old one). */
export async function replaceRecoveryCodes({
  userId,
  codeHashes,
}: {
  userId: string;
  codeHashes: string[];
}): Promise<void> {
  await getDb().$transaction([
    getDb().recoveryCode.deleteMany({ where: { userId } }),
    getDb().recoveryCode.createMany({ data: codeHashes.map((codeHash) => ({ userId, codeHash })) }),
  ]);
}

/**
 * Marks the code used; true only for the one caller that found it unused (a replay or a race gets false).
 * `requirePasswordChange` (a sign-in with the code): in the same write, the user must choose a new password next.
 */
export async function consumeRecoveryCode({
  userId,
  codeHash,
  requirePasswordChange = false,
}: {
  userId: string;
  codeHash: string;
  requirePasswordChange?: boolean;
}): Promise<boolean> {
  return getDb().$transaction(async (tx) => {
    const { count } = await tx.recoveryCode.updateMany({
      where: { userId, codeHash, usedAt: null },
      data: { usedAt: new Date() },
    });
    if (count !== 1) return false;
    if (requirePasswordChange) await tx.user.update({ where: { id: userId }, data: { passwordMustChange: true } });
    return true;
  });
}
