import "server-only";
// Personal access tokens (issue 30): how an outside MCP client proves who it acts for. The secret is shown once
// and stored only as a SHA-256 (it has 256 random bits: a slow hash protects nothing a guess could find). A
// token is its user and never more: the user's roles, teams and mode grants are read fresh on every request,
// and a deactivation or password change revokes every token in the same write (lib/db/users.ts).
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import {
  countLiveAccessTokens,
  findAccessToken,
  findAccessTokenByHash,
  findAccessTokenState,
  insertAccessToken,
  listAccessTokens,
  revokeAccessToken,
  touchAccessToken,
  type AccessTokenRow,
} from "@/lib/db/access-tokens";
import { TOOL_MODES, type Role, type ToolMode } from "@/lib/policy/types";
import { agentAccessReason } from "@/lib/policy";
import { loadPolicyDocument } from "@/lib/tools/policy-source";
import type { TokenView } from "./token-views";

const TOKEN_PREFIX = "tgp_";
/** tgp_ + 43 base64url characters (32 bytes). Anything else is refused before the database is asked. */
const TOKEN_SHAPE = /^tgp_[A-Za-z0-9_-]{43}$/;
/** Live tokens per user: enough for every editor and bot, not a way to fill the table. */
export const MAX_LIVE_TOKENS_PER_USER = 50;
/** lastUsedAt is written at most this often per token, so a busy client does not write on every request. */
const TOUCH_EVERY_MS = 60_000;

export const CreateTokenBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    expiresInDays: z.number().int().min(1).max(3650).optional(),
    agentId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64")
      .optional(),
    mode: z.enum(TOOL_MODES).default("chat_safe"),
  })
  .strict();

function toView(row: AccessTokenRow, now: Date, owner?: { id: string; email: string }): TokenView {
  const status = row.revokedAt ? "revoked" : row.expiresAt && row.expiresAt <= now ? "expired" : "active";
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    agentId: row.agentId,
    mode: row.mode,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    status,
    ...(owner ? { user: owner } : {}),
  };
}

export function hashToken(secret: string): string {
  return createHash("sha256").update(secret).digest("hex");
}

/**
 * A token bound to an agent must name one its user may use now (the same usableBy rule as picking it for a chat).
 * Each call re-checks anyway, but a token that could never work is refused while the person is still there to read why.
 */
async function requireBindableAgent({ user, agentId }: { user: TokenUser; agentId: string }): Promise<void> {
  const { document } = await loadPolicyDocument();
  if (!Object.prototype.hasOwnProperty.call(document.agents, agentId)) {
    throw new AppError("VALIDATION_FAILED", `agentId: there is no agent "${agentId}" in the policy`, {
      field: "agentId",
      agentId,
    });
  }
  if (agentAccessReason(document.agents[agentId]?.usableBy, user) === null) {
    throw new AppError(
      "FORBIDDEN",
      `agentId: you may not use the agent "${agentId}", so no token may be bound to it; ask an admin to add you to its usableBy`,
      { field: "agentId", agentId },
    );
  }
}

type TokenUser = { id: string; email: string; roles: Role[]; teamIds: string[] };

export async function createAccessToken({
  user,
  body,
}: {
  user: TokenUser;
  body: z.output<typeof CreateTokenBody>;
}): Promise<{ token: string; view: TokenView }> {
  const now = new Date();
  if (body.agentId !== undefined) await requireBindableAgent({ user, agentId: body.agentId });
  if ((await countLiveAccessTokens({ userId: user.id, now })) >= MAX_LIVE_TOKENS_PER_USER) {
    throw new AppError("CONFLICT", `you have ${MAX_LIVE_TOKENS_PER_USER} live tokens; revoke one first`);
  }
  const secret = `${TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const row = await insertAccessToken({
    userId: user.id,
    name: body.name,
    tokenHash: hashToken(secret),
    prefix: secret.slice(0, 10),
    agentId: body.agentId ?? null,
    mode: body.mode,
    expiresAt: body.expiresInDays ? new Date(now.getTime() + body.expiresInDays * 86_400_000) : null,
  });
  await appendAudit({
    action: "token.created",
    actorId: user.id,
    decision: "allow",
    details: {
      tokenId: row.id,
      name: row.name,
      agentId: row.agentId,
      mode: row.mode,
      expiresAt: row.expiresAt?.toISOString() ?? null,
    },
  });
  return { token: secret, view: toView(row, now) };
}

/** Own tokens; with `all`, every user's (admins only). */
export async function listTokens({
  user,
  all,
}: {
  user: { id: string; roles: Role[] };
  all: boolean;
}): Promise<TokenView[]> {
  if (all && !user.roles.includes("admin")) throw new AppError("FORBIDDEN", "only an admin lists every user's tokens");
  const now = new Date();
  const rows = await listAccessTokens({ userId: all ? undefined : user.id });
  return rows.map((row) => toView(row, now, all ? { id: row.userId, email: row.userEmail } : undefined));
}

/** The owner or an admin revokes; anyone else learns nothing (404, the same as a token that does not exist). */
export async function revokeToken({
  actor,
  id,
}: {
  actor: { id: string; roles: Role[] };
  id: string;
}): Promise<TokenView> {
  const row = await findAccessToken({ id });
  if (!row || (row.userId !== actor.id && !actor.roles.includes("admin")))
    throw new AppError("NOT_FOUND", `there is no token ${id}`);
  const now = new Date();
  if (await revokeAccessToken({ id, at: now })) {
    await appendAudit({
      action: "token.revoked",
      actorId: actor.id,
      decision: "allow",
      details: { tokenId: id, userId: row.userId, name: row.name },
    });
  }
  const after = await findAccessToken({ id });
  return toView(after ?? row, now);
}

/** Who a bearer token acts for, read fresh: the user's current roles and teams, the token's binding. */
export type TokenPrincipal = {
  tokenId: string;
  tokenName: string;
  agentId: string | null;
  /** The mode the token asks for; the caller re-checks it against the user's current mode grants. */
  mode: ToolMode;
  /** When the credential ends by itself (null: never). */
  expiresAt: Date | null;
  user: { id: string; email: string; name: string | null; roles: Role[]; teamIds: string[] };
};

/** Null for a missing, malformed, unknown, revoked or expired token, or one whose user is deactivated. */
export async function authenticateBearer(header: string | null, now = new Date()): Promise<TokenPrincipal | null> {
  const match = /^Bearer ([^\s]+)$/i.exec(header?.trim() ?? "");
  const secret = match?.[1];
  if (!secret || !TOKEN_SHAPE.test(secret)) return null;
  const found = await findAccessTokenByHash({ tokenHash: hashToken(secret) });
  if (!found || found.userDisabled) return null;
  const { token, user } = found;
  if (token.revokedAt || (token.expiresAt && token.expiresAt <= now)) return null;
  if (!token.lastUsedAt || now.getTime() - token.lastUsedAt.getTime() > TOUCH_EVERY_MS) {
    // Best effort: a lost write of the last-use time must not fail the request.
    touchAccessToken({ id: token.id, at: now }).catch(() => undefined);
  }
  const mode = (TOOL_MODES as readonly string[]).includes(token.mode) ? (token.mode as ToolMode) : "chat_safe";
  return { tokenId: token.id, tokenName: token.name, agentId: token.agentId, mode, expiresAt: token.expiresAt, user };
}

/** Why a personal token's authority has ended, read fresh (revoked, expired, its user deactivated); null while it holds. */
export async function accessTokenEnd(
  { tokenId }: { tokenId: string },
  now = new Date(),
): Promise<"TOKEN_EXPIRED" | "TOKEN_REVOKED" | null> {
  const state = await findAccessTokenState({ id: tokenId });
  if (!state || state.revokedAt || state.user.disabledAt) return "TOKEN_REVOKED";
  if (state.expiresAt && state.expiresAt <= now) return "TOKEN_EXPIRED";
  return null;
}
