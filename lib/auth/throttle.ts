import "server-only";
// Throttling with rate-limiter-flexible, stored in the app's database (RateLimiterPrisma on the
// RateLimiterFlexible table), so every instance on the same SQLite file or PostgreSQL database shares the
// counters. Sign-in reserves a point before the password is checked (parallel guesses cannot overshoot)
// and gives it back on success; a store failure refuses (fail closed).
import { RateLimiterPrisma, RateLimiterRes } from "rate-limiter-flexible";
import { loadConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

const FIFTEEN_MINUTES = 15 * 60;

type LimiterName = "signin-account-address" | "signin-account" | "chat" | "approvals" | "mcp";

const limiters = new Map<LimiterName, RateLimiterPrisma>();

function limiter(name: LimiterName): RateLimiterPrisma {
  let found = limiters.get(name);
  if (!found) {
    const c = loadConfig();
    const spec: Record<LimiterName, { points: number; duration: number }> = {
      // The rule: 10 failures for one account from one address in 15 minutes.
      "signin-account-address": { points: c.SIGNIN_MAX_FAILURES, duration: FIFTEEN_MINUTES },
      // Addresses can be forged without a trusted proxy, so an account also has a cap over all addresses.
      "signin-account": { points: c.SIGNIN_MAX_FAILURES * 5, duration: FIFTEEN_MINUTES },
      chat: { points: c.CHAT_TURNS_PER_MINUTE, duration: 60 },
      approvals: { points: c.APPROVAL_REQUESTS_PER_MINUTE, duration: 60 },
      mcp: { points: c.MCP_REQUESTS_PER_MINUTE, duration: 60 },
    };
    found = new RateLimiterPrisma({ storeClient: getDb(), tableName: "rateLimiterFlexible", keyPrefix: name, ...spec[name] });
    limiters.set(name, found);
  }
  return found;
}

function rateLimited(res: RateLimiterRes, message: string): AppError {
  const seconds = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return new AppError("RATE_LIMITED", `${message}; try again in ${seconds} s`, { retryAfterSeconds: seconds }, { "retry-after": String(seconds) });
}

async function take(name: LimiterName, key: string, message: string): Promise<void> {
  try {
    await limiter(name).consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw rateLimited(error, message);
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

export type SignInAttempt = { email: string; address: string };

/** Reserves one attempt for the account (and the account from this address); 429 once either is used up. */
export async function beginSignInAttempt({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  await take("signin-account-address", `${account}|${address}`, "too many failed sign-ins for this account from this address");
  await take("signin-account", account, "too many failed sign-ins for this account");
}

/** A correct password: the reserved points are given back and the address's failure count starts over. */
export async function signInSucceeded({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  await limiter("signin-account-address").delete(`${account}|${address}`);
  await limiter("signin-account").reward(account, 1);
}

/** Without consuming: 429 when the account from this address is already blocked (the HTTP sign-in route). */
export async function assertSignInOpen({ email, address }: SignInAttempt): Promise<void> {
  const account = email.trim().toLowerCase();
  for (const [name, key] of [["signin-account-address", `${account}|${address}`], ["signin-account", account]] as const) {
    const res = await limiter(name).get(key);
    if (res && res.remainingPoints <= 0 && res.consumedPoints >= limiter(name).points) throw rateLimited(res, "too many failed sign-ins for this account");
  }
}

/** Per-user limits on starting chat turns and on approval requests through the API. */
export function consumeUserQuota(kind: "chat" | "approvals", userId: string): Promise<void> {
  return take(kind, userId, kind === "chat" ? "too many chat turns" : "too many approval requests");
}

/** Per access token: one outside client cannot take the upstream servers' capacity from everyone else. */
export function consumeTokenQuota(tokenId: string): Promise<void> {
  return take("mcp", tokenId, "too many MCP requests for this token");
}
