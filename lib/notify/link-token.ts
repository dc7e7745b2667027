// One-click decision links (e-mail): a token bound to one approval, its arguments' hash and one approver, expiring
// with the request, MACed with a key derived from AUTH_SECRET (HKDF, a purpose of its own: it signs nothing else).
// The token only lets its approver reach the confirmation page and make the POST there; its nonce is recorded
// when used (lib/notify/link-decision.ts), so it decides at most once.
import { createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";
import { loadConfig } from "@/lib/config";

export type LinkClaims = { a: string; h: string; u: string; e: number; n: string };

function key(): Buffer | null {
  const secret = loadConfig().AUTH_SECRET;
  if (!secret) return null;
  return Buffer.from(hkdfSync("sha256", secret, "toolgate", "approval decision links v1", 32));
}

const b64 = (b: Buffer | string) => Buffer.from(b).toString("base64url");

/** null when no AUTH_SECRET is configured: the mail then links to the inbox only (a session decides). */
export function createLinkToken({
  approvalId,
  argsHash,
  userId,
  expiresAt,
}: {
  approvalId: string;
  argsHash: string;
  userId: string;
  expiresAt: Date;
}): string | null {
  const k = key();
  if (!k) return null;
  const claims: LinkClaims = {
    a: approvalId,
    h: argsHash,
    u: userId,
    e: Math.floor(expiresAt.getTime() / 1000),
    n: randomBytes(16).toString("base64url"),
  };
  const body = b64(JSON.stringify(claims));
  return `v1.${body}.${b64(createHmac("sha256", k).update(`v1.${body}`).digest())}`;
}

/** The claims of an intact, unexpired token; null for anything else (altered, another key, expired, malformed). */
export function readLinkToken(token: string, now = Date.now()): LinkClaims | null {
  const k = key();
  const parts = token.split(".");
  if (!k || parts.length !== 3 || parts[0] !== "v1" || token.length > 2_000) return null;
  const [, body, mac] = parts as [string, string, string];
  // Compared as text in its one canonical encoding: decoding first would accept other spellings of the same bytes
  // (the last base64url character carries two unused bits), so one token would have four valid forms.
  const expected = Buffer.from(b64(createHmac("sha256", k).update(`v1.${body}`).digest()));
  const given = Buffer.from(mac);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let claims: LinkClaims;
  try {
    claims = JSON.parse(Buffer.from(body, "base64url").toString("utf8"));
  } catch {
    return null;
  }
  const ok =
    typeof claims?.a === "string" &&
    typeof claims.h === "string" &&
    typeof claims.u === "string" &&
    typeof claims.n === "string" &&
    Number.isInteger(claims.e);
  if (!ok || claims.e * 1000 <= now) return null;
  return claims;
}
