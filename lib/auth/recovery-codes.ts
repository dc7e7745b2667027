import "server-only";
// One-time recovery codes for admins: the way in that no sign-in throttle blocks (issue 29). Issued by
// `npm run recovery-codes -- EMAIL` (scripts/recovery-codes.ts), shown once; only their SHA-256 is stored (80 random
// bits each, so a slow hash adds nothing). A code is typed into the password field; its own limit per address
// (10 an hour) bounds the lookups, and guessing one is hopeless at that rate.
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import { consumeRecoveryCode, replaceRecoveryCodes } from "@/lib/db/recovery-codes";
import { findUserByEmail, userHasRole } from "@/lib/db/users";

const ALPHABET = "abcdefghijklmnopqrstuvwxyz234567";
export const RECOVERY_CODE = /^tgrc(-[a-z2-7]{4}){4}$/;
const CODES_PER_ISSUE = 10;

export function looksLikeRecoveryCode(value: string): boolean {
  return RECOVERY_CODE.test(value.trim().toLowerCase());
}

function newCode(): string {
  const bytes = randomBytes(10);
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  return `tgrc-${out.match(/.{4}/g)!.join("-")}`;
}

function hashOf(code: string): string {
  return createHash("sha256").update(code.trim().toLowerCase()).digest("hex");
}

/** A new set of codes for an admin, replacing any earlier ones; the codes are returned once and never stored. */
export async function issueRecoveryCodes({ email }: { email: string }): Promise<string[]> {
  const user = await findUserByEmail({ email });
  if (!user || !(await userHasRole({ email, role: "admin" })))
    throw new AppError("NOT_FOUND", `there is no admin ${email}`);
  const codes = Array.from({ length: CODES_PER_ISSUE }, newCode);
  await replaceRecoveryCodes({ userId: user.id, codeHashes: codes.map(hashOf) });
  await appendAudit({
    action: "user.recovery_codes_issued",
    actorId: null,
    decision: "allow",
    details: { userId: user.id, count: codes.length },
  });
  return codes;
}

/**
 * The admin's id when the code is one of their unused codes (now used), else null. The admin must choose a new
 * password next (the guards refuse everything else): a code is for a lost or locked-out password, and whoever used
 * it should not go on with the old one.
 */
export async function signInWithRecoveryCode({
  email,
  code,
}: {
  email: string;
  code: string;
}): Promise<{ id: string; email: string; name: string | null } | null> {
  const user = await findUserByEmail({ email });
  if (!user || user.disabledAt || !(await userHasRole({ email, role: "admin" }))) return null;
  if (!(await consumeRecoveryCode({ userId: user.id, codeHash: hashOf(code), requirePasswordChange: true })))
    return null;
  await appendAudit({
    action: "user.recovery_code_used",
    actorId: user.id,
    decision: "allow",
    details: { userId: user.id, purpose: "sign_in", passwordMustChange: true },
  });
  return { id: user.id, email: user.email, name: user.name };
}

/**
 * Proof of identity for a password change in place of the current password (which the admin who signed in with a
 * code may no longer know): another unused code of theirs, used up by this.
 */
export async function proveWithRecoveryCode({ userId, code }: { userId: string; code: string }): Promise<boolean> {
  if (!looksLikeRecoveryCode(code)) return false;
  if (!(await consumeRecoveryCode({ userId, codeHash: hashOf(code) }))) return false;
  // Audited as a sign-in's code is: every use of a code is in the log, whichever way it was used.
  const details = { userId, purpose: "password_change" };
  await appendAudit({ action: "user.recovery_code_used", actorId: userId, decision: "allow", details });
  return true;
}
