import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";

const COST = 10;

export function hashPassword(password: string): Promise<string> {
  return bcrypt.hash(password, COST);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return bcrypt.compare(password, hash);
}

// A hash of a random password at the same cost, made once: an unknown account (or one without a password)
// is checked against it, so sign-in takes the same time whether or not the account exists.
let dummy: Promise<string> | undefined;

/** bcrypt work in every case; false when there is no hash. */
export async function verifyPasswordConstantWork(password: string, hash: string | null | undefined): Promise<boolean> {
  dummy ??= bcrypt.hash(`no-account-${Math.random()}`, COST);
  const ok = await bcrypt.compare(password, hash ?? (await dummy));
  return ok && Boolean(hash);
}

/**
 * A one-time password an admin hands over (new account or reset): 144 random bits, URL-safe, shown once and
 * never stored in clear or audited. Chosen over an invite link: the app sends no e-mail, and a link would need a
 * new unauthenticated redeem endpoint (more surface) for the same secret-in-transit problem.
 */
export function newTemporaryPassword(): string {
  return randomBytes(18).toString("base64url");
}
