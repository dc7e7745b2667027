import "server-only";
// Throttling with rate-limiter-flexible, stored in the app's database (RateLimiterPrisma on the
// RateLimiterFlexible table, counting a request in one operation: prisma-limiter.ts), so every instance on the same
// SQLite file or PostgreSQL database shares the counters. Sign-in reserves its points before the password is checked (parallel guesses cannot overshoot) and
// gives them back on success; a store failure refuses (fail closed).
//
// Sign-in limits slow a guesser without letting anyone lock a real user out (docs/sign-in-throttling.md):
// - one account from one address: SIGNIN_MAX_FAILURES wrong passwords in 15 minutes, then 429 for that pair only;
// - one address over all accounts: SIGNIN_MAX_FAILURES_PER_ADDRESS a day (password spraying);
// - one account over all addresses: no lock. Past SIGNIN_MAX_FAILURES failures in a day the account is slowed: each
//   address that tries it then waits before its next try, 2 s doubling to at most 60 s. An address that has not
//   tried the account waits for nothing, so the right password from a new address always gets in at once;
// - an admin signing in from SIGNIN_TRUSTED_NETWORKS is not throttled at all, nor an admin with a one-time
//   recovery code (lib/auth/recovery-codes.ts; 10 code attempts an hour per address);
// - a wrong current password on /api/me/password spends its own budget, never the sign-in one.
import { RateLimiterRes } from "rate-limiter-flexible";
import { loadConfig, parseNetworks } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { userHasRole } from "@/lib/db/users";
import { AppError } from "@/lib/errors";
import { countRateLimited } from "@/lib/ops/metrics";
import { PrismaWindowLimiter } from "./prisma-limiter";

const FIFTEEN_MINUTES = 15 * 60;
const DAY = 24 * 3600;
/** The longest an address waits between two tries of a slowed account. */
export const MAX_SIGNIN_DELAY_SECONDS = 60;
const PASSWORD_CHANGE_FAILURES = 5;

type LimiterName =
  | "signin-account-address"
  | "signin-address"
  | "signin-account"
  | "signin-pace"
  | "signin-recovery"
  | "password-change"
  | "chat"
  | "approvals"
  | "mcp";

const limiters = new Map<LimiterName, PrismaWindowLimiter>();

function limiter(name: LimiterName): PrismaWindowLimiter {
  let found = limiters.get(name);
  if (!found) {
    const c = loadConfig();
    const spec: Record<LimiterName, { points: number; duration: number }> = {
      "signin-account-address": { points: c.SIGNIN_MAX_FAILURES, duration: FIFTEEN_MINUTES },
      "signin-address": { points: c.SIGNIN_MAX_FAILURES_PER_ADDRESS, duration: DAY },
      // A counter, never a lock: how many failures the account saw today, which sets the pace below.
      "signin-account": { points: Number.MAX_SAFE_INTEGER, duration: DAY },
      // Blocked (limiter.block) for the pace's delay after a try of a slowed account, per account and address.
      "signin-pace": { points: 1, duration: MAX_SIGNIN_DELAY_SECONDS },
      "password-change": { points: PASSWORD_CHANGE_FAILURES, duration: FIFTEEN_MINUTES },
      // Recovery codes (lib/auth/recovery-codes.ts) skip the sign-in limits; this bounds their lookups per address.
      "signin-recovery": { points: 10, duration: 3600 },
      chat: { points: c.CHAT_TURNS_PER_MINUTE, duration: 60 },
      approvals: { points: c.APPROVAL_REQUESTS_PER_MINUTE, duration: 60 },
      mcp: { points: c.MCP_REQUESTS_PER_MINUTE, duration: 60 },
    };
    found = new PrismaWindowLimiter({
      storeClient: getDb(),
      tableName: "rateLimiterFlexible",
      keyPrefix: name,
      ...spec[name],
    });
    limiters.set(name, found);
  }
  return found;
}

function rateLimited(res: RateLimiterRes, message: string, name: LimiterName): AppError {
  countRateLimited(name);
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError(
    "RATE_LIMITED",
    `${message}; try again in ${seconds} s`,
    { retryAfterSeconds: seconds },
    { "retry-after": String(seconds) },
  );
}

async function take(name: LimiterName, key: string, message: string): Promise<RateLimiterRes> {
  try {
    return await limiter(name).consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw rateLimited(error, message, name);
    throw error;
  }
}

/**
 * The client address: X-Forwarded-For as the app's server (scripts/server.mjs) sets it on every request: the
 * socket's address, or the address the outermost trusted proxy saw (TRUST_PROXY_HOPS); never a client's claim.
 */
export function clientAddress(headers: Headers | undefined): string {
  const forwarded = headers?.get("x-forwarded-for")?.split(",")[0]?.trim();
  return forwarded || headers?.get("x-real-ip") || "unknown";
}

let trustedNetworks: { source: string; list: ReturnType<typeof parseNetworks> } | null = null;

/** Whether the address is in SIGNIN_TRUSTED_NETWORKS (IPv4-mapped IPv6 addresses count as IPv4). */
export function isTrustedAddress(address: string): boolean {
  const source = loadConfig().SIGNIN_TRUSTED_NETWORKS;
  if (trustedNetworks?.source !== source) trustedNetworks = { source, list: parseNetworks(source) };
  const list = trustedNetworks.list;
  if (!list || source.trim() === "") return false;
  const plain = address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
  try {
    return list.check(plain, plain.includes(":") ? "ipv6" : "ipv4");
  } catch {
    return false;
  }
}

export type SignInAttempt = { email: string; address: string };

/** An admin signing in from SIGNIN_TRUSTED_NETWORKS is never throttled: the way back in while someone guesses. */
export async function isSignInExempt({ email, address }: SignInAttempt): Promise<boolean> {
  return isTrustedAddress(address) && (await userHasRole({ email: email.trim(), role: "admin" }));
}

const pairKey = (account: string, address: string) => `${account}|${address}`;

/** 2 s after the first failure past the free ones, doubling, at most MAX_SIGNIN_DELAY_SECONDS. */
export function paceDelaySeconds(failuresToday: number): number {
  const over = failuresToday - loadConfig().SIGNIN_MAX_FAILURES;
  return over <= 0 ? 0 : Math.min(MAX_SIGNIN_DELAY_SECONDS, 2 ** Math.min(over, 10));
}

/** Reserves one attempt (429 once this address may not try this account now); the points come back on success. */
export async function beginSignInAttempt({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  await assertPaceOpen(account, address);
  await take(
    "signin-account-address",
    pairKey(account, address),
    "too many failed sign-ins for this account from this address",
  );
  await take("signin-address", address, "too many failed sign-ins from this address");
  const counted = await take("signin-account", account, "too many failed sign-ins for this account");
  const delay = paceDelaySeconds(counted.consumedPoints);
  if (delay > 0) await limiter("signin-pace").block(pairKey(account, address), delay);
}

/** A correct password: the reserved points are given back and this address's counts for the account start over. */
export async function signInSucceeded({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  await limiter("signin-account-address").delete(pairKey(account, address));
  await limiter("signin-pace").delete(pairKey(account, address));
  await limiter("signin-address").reward(address, 1);
  await limiter("signin-account").reward(account, 1);
}

async function assertPaceOpen(account: string, address: string): Promise<void> {
  const res = await limiter("signin-pace").get(pairKey(account, address));
  if (res && res.consumedPoints > 1 && res.msBeforeNext > 0)
    throw rateLimited(res, "this account is being guessed at; wait before trying it again from here", "signin-pace");
}

/** Without consuming: 429 when this address may not try this account now (the HTTP sign-in route, before next-auth). */
export async function assertSignInOpen({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  await assertPaceOpen(account, address);
  for (const [name, key] of [
    ["signin-account-address", pairKey(account, address)],
    ["signin-address", address],
  ] as const) {
    const res = await limiter(name).get(key);
    if (res && res.remainingPoints <= 0 && res.consumedPoints >= limiter(name).points)
      throw rateLimited(
        res,
        name === "signin-address"
          ? "too many failed sign-ins from this address"
          : "too many failed sign-ins for this account",
        name,
      );
  }
}

/** One recovery-code sign-in from this address (10 an hour, successful or not). */
export async function beginRecoveryAttempt(address: string): Promise<void> {
  await take("signin-recovery", address, "too many recovery-code sign-ins from this address");
}

/** A wrong current password on a password change: its own budget per user, not the sign-in one. */
export async function beginPasswordCheck(userId: string): Promise<void> {
  await take("password-change", userId, "too many wrong current passwords; try again later");
}

export async function passwordCheckSucceeded(userId: string): Promise<void> {
  await limiter("password-change").delete(userId);
}

/** Per-user limits on starting chat turns and on approval requests through the API. */
export function consumeUserQuota(kind: "chat" | "approvals", userId: string): Promise<void> {
  return take(kind, userId, kind === "chat" ? "too many chat turns" : "too many approval requests").then(
    () => undefined,
  );
}

/** Per access token: one outside client cannot take the upstream servers' capacity from everyone else. */
export function consumeTokenQuota(tokenId: string): Promise<void> {
  return take("mcp", tokenId, "too many MCP requests for this token").then(() => undefined);
}
