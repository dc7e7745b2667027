import "server-only";
// Per-user limits on the writes a member can repeat that are not chat turns or approval requests (those are
// lib/auth/throttle.ts's `consumeUserQuota`): creating, renaming, switching the mode of, deleting and restoring
// chat sessions. Each of them adds an audit row and events that nothing prunes, so without a limit one member
// could grow the database (and the server's memory) at will (issue 29, finding 4). Stop is not limited: it must
// always work, and it writes only while a turn runs, which the chat-turn limit already bounds.
// Credential writes (creating an access token, changing one's own password) share a budget of their own: each
// mints a secret or rewrites one, and a stolen session should not be able to mint tokens at will. Revoking is never
// limited: it must always work.
// Counters live in the database (RateLimiterPrisma), like the other limits, so every instance shares them.
import { RateLimiterPrisma, RateLimiterRes } from "rate-limiter-flexible";
import { loadConfig } from "@/lib/config";
import { getDb } from "@/lib/db/client";
import { AppError } from "@/lib/errors";

export type WriteKind = "session-writes" | "credential-writes" | "oauth-writes";

const limiters = new Map<WriteKind, RateLimiterPrisma>();

function limiter(kind: WriteKind): RateLimiterPrisma {
  let found = limiters.get(kind);
  if (!found) {
    const config = loadConfig();
    // OAuth consents and client registrations (lib/oauth) each add rows a person or a script could repeat at will.
    const points =
      kind === "credential-writes"
        ? config.CREDENTIAL_WRITES_PER_MINUTE
        : kind === "oauth-writes"
          ? config.OAUTH_WRITES_PER_MINUTE
          : config.SESSION_WRITES_PER_MINUTE;
    found = new RateLimiterPrisma({
      storeClient: getDb(),
      tableName: "rateLimiterFlexible",
      keyPrefix: kind,
      points,
      duration: 60,
    });
    limiters.set(kind, found);
  }
  return found;
}

const MESSAGES: Record<WriteKind, string> = {
  "session-writes": "too many changes to chat sessions",
  "credential-writes": "too many new tokens or passwords",
  "oauth-writes": "too many OAuth consents or client registrations",
};

/** One write of `kind` by this user; 429 (RATE_LIMITED, with Retry-After) once the minute's budget is spent. */
export async function consumeWriteQuota(kind: WriteKind, userId: string): Promise<void> {
  try {
    await limiter(kind).consume(userId);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error; // a store failure refuses the write (fail closed)
    const seconds = Math.max(1, Math.ceil(error.msBeforeNext / 1000));
    throw new AppError(
      "RATE_LIMITED",
      `${MESSAGES[kind]}; try again in ${seconds} s`,
      { retryAfterSeconds: seconds },
      { "retry-after": String(seconds) },
    );
  }
}
