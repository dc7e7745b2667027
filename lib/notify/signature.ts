// The generic webhook's signature: `X-Toolgate-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, keyed
// with the target's secret. The timestamp is inside the MAC, so a receiver can refuse old deliveries (replays).
import { createHmac, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-Toolgate-Signature";

export function signBody(secret: string, body: string, unixSeconds = Math.floor(Date.now() / 1000)): string {
  const v1 = createHmac("sha256", secret).update(`${unixSeconds}.${body}`).digest("hex");
  return `t=${unixSeconds},v1=${v1}`;
}

/** A receiver's check (documented for integrators, used by the tests): the MAC matches and t is recent. */
export function verifySignature(
  secret: string,
  body: string,
  header: string,
  { toleranceSeconds = 300, now = Date.now() } = {},
): boolean {
  const parts = Object.fromEntries(header.split(",").map((p) => p.trim().split("=", 2) as [string, string]));
  const t = Number(parts.t);
  const v1 = parts.v1 ?? "";
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false;
  if (Math.abs(now / 1000 - t) > toleranceSeconds) return false;
  const expected = createHmac("sha256", secret).update(`${t}.${body}`).digest();
  return timingSafeEqual(expected, Buffer.from(v1, "hex"));
}
