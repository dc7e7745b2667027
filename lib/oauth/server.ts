import "server-only";
// OAuth 2.1 authorization server for /mcp (issue 30), as the MCP authorization spec describes it: dynamic client
// registration (RFC 7591), authorization code with PKCE S256 only, consent by the signed-in user, resource-bound
// tokens (RFC 8707: a token is for this app's /mcp and nothing else, so it is never useful to an upstream
// server), single-use codes, rotating refresh tokens (a replayed one revokes the grant). Request shapes, metadata
// and error types are the MCP SDK's (shared/auth, server/auth/errors); storage is ours (lib/db/oauth.ts).
import { createHash, randomBytes } from "node:crypto";
import { z } from "zod";
import { OAuthClientMetadataSchema } from "@modelcontextprotocol/sdk/shared/auth.js";
import {
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidTargetError,
  TooManyRequestsError,
  UnsupportedGrantTypeError,
} from "@modelcontextprotocol/sdk/server/auth/errors.js";
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { appendAudit } from "@/lib/db/audit";
import {
  consumeOAuthCode,
  countOAuthClientsSince,
  findOAuthAccessToken,
  findOAuthClient,
  findOAuthTokenGrant,
  findOAuthTokenState,
  findOldestOAuthClientSince,
  insertOAuthClient,
  insertOAuthGrantWithCode,
  insertOAuthTokens,
  revokeOAuthGrant,
  revokeOAuthTokenById,
  rotateOAuthRefreshToken,
  type NewOAuthToken,
} from "@/lib/db/oauth";
import { TOOL_MODES, type ToolMode } from "@/lib/policy/types";
import type { TokenPrincipal } from "@/lib/auth/access-tokens";
import { MCP_PATH, publicBaseUrl } from "@/lib/gateway/base-url";
import { CODE_CHALLENGE_SHAPE, pkceMatches, redirectUriMatches, redirectUriProblem } from "./redirect-uri";

const CODE_TTL_MS = 10 * 60_000;
const REFRESH_TTL_MS = 30 * 86_400_000;
const ACCESS_SHAPE = /^tgo_[A-Za-z0-9_-]{43}$/;
const MAX_REDIRECT_URIS = 10;
/** What registerClient issues; anything else is unknown without asking the database (a NUL byte would fail there). */
const CLIENT_ID_SHAPE = /^tgc_[A-Za-z0-9_-]{22}$/;

export function mcpResource(): string {
  return `${publicBaseUrl()}${MCP_PATH}`;
}

/** RFC 8414 metadata; every URL from PUBLIC_BASE_URL, never from the request. */
export function authorizationServerMetadata() {
  const base = publicBaseUrl();
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    revocation_endpoint: `${base}/oauth/revoke`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["mcp"],
    service_documentation: `${base}/settings`,
  };
}

function secret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString("base64url")}`;
}

export function hashSecret(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

// ---------------------------------------------------------------------------------------------- registration

/** Registers a public client. Past the hourly global ceiling: 429 with Retry-After (seconds until a place frees). */
export async function registerClient(raw: unknown, now = new Date()) {
  const parsed = OAuthClientMetadataSchema.safeParse(raw);
  if (!parsed.success)
    throw new InvalidClientMetadataError(
      parsed.error.issues.map((i) => `${i.path.join(".") || "(body)"}: ${i.message}`).join("; "),
    );
  const meta = parsed.data;
  if (meta.redirect_uris.length === 0 || meta.redirect_uris.length > MAX_REDIRECT_URIS)
    throw new InvalidClientMetadataError(`redirect_uris: 1 to ${MAX_REDIRECT_URIS} URIs`);
  for (const uri of meta.redirect_uris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new InvalidClientMetadataError(`redirect_uris: ${uri.slice(0, 200)} ${problem}`);
  }
  const grantTypes = meta.grant_types ?? ["authorization_code", "refresh_token"];
  if (grantTypes.some((g) => g !== "authorization_code" && g !== "refresh_token"))
    throw new InvalidClientMetadataError("grant_types: only authorization_code and refresh_token");
  if ((meta.response_types ?? ["code"]).some((r) => r !== "code"))
    throw new InvalidClientMetadataError("response_types: only code");
  const windowStart = new Date(now.getTime() - 3600_000);
  const { OAUTH_MAX_REGISTRATIONS_PER_HOUR } = loadConfig();
  if ((await countOAuthClientsSince({ since: windowStart })) >= OAUTH_MAX_REGISTRATIONS_PER_HOUR) {
    const oldest = await findOldestOAuthClientSince({ since: windowStart });
    const seconds = Math.max(1, Math.ceil(((oldest?.getTime() ?? now.getTime()) + 3600_000 - now.getTime()) / 1000));
    throw Object.assign(new TooManyRequestsError(`too many client registrations; try again in ${seconds} s`), {
      retryAfterSeconds: seconds,
    });
  }
  const name = (meta.client_name ?? "MCP client").slice(0, 100);
  // Public clients only: PKCE proves the code's holder, so no secret is issued whatever was asked for (RFC 7591
  // lets the server replace a requested value).
  const stored = {
    ...meta,
    client_name: name,
    grant_types: grantTypes,
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  const client = await insertOAuthClient({
    clientId: `tgc_${randomBytes(16).toString("base64url")}`,
    name,
    redirectUris: meta.redirect_uris,
    metadata: stored,
  });
  await appendAudit({
    action: "oauth.client_registered",
    actorId: null,
    decision: "allow",
    details: { clientId: client.clientId, name, redirectUris: meta.redirect_uris },
  });
  return { ...stored, client_id: client.clientId, client_id_issued_at: Math.floor(client.createdAt.getTime() / 1000) };
}

// ---------------------------------------------------------------------------------------------- authorization

const AuthorizeParams = z.object({
  response_type: z.literal("code", { error: "response_type must be code" }),
  code_challenge: z
    .string()
    .regex(CODE_CHALLENGE_SHAPE, "code_challenge must be an S256 challenge (43 base64url characters)"),
  code_challenge_method: z.literal("S256", { error: "code_challenge_method must be S256 (plain is not supported)" }),
  state: z.string().max(2000).optional(),
  scope: z.string().max(1000).optional(),
  resource: z.string().max(2000).optional(),
});

export type AuthorizationRequest = z.infer<typeof AuthorizeParams> & {
  client_id: string;
  redirect_uri: string;
  clientName: string;
  clientDbId: string;
  resourceUrl: string;
};

export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  /** No trustworthy redirect URI: the page shows the problem and sends nobody anywhere. */
  | { ok: false; message: string; redirectTo?: undefined }
  /** A trustworthy redirect URI: the error goes back to the client there. */
  | { ok: false; message: string; redirectTo: string };

function single(params: Record<string, string | string[] | undefined>, key: string): string | undefined {
  const value = params[key];
  return Array.isArray(value) ? undefined : value;
}

export function errorRedirect(redirectUri: string, error: string, description: string, state?: string): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  url.searchParams.set("error_description", description);
  if (state !== undefined) url.searchParams.set("state", state);
  url.searchParams.set("iss", publicBaseUrl());
  return url.toString();
}

/** Checks an authorization request: the client and exact redirect URI first (never redirect elsewhere), then the rest. */
export async function checkAuthorizationRequest(
  params: Record<string, string | string[] | undefined>,
): Promise<AuthorizationCheck> {
  for (const [key, value] of Object.entries(params))
    if (Array.isArray(value)) return { ok: false, message: `${key} is given more than once` };
  const clientId = single(params, "client_id");
  const redirectUri = single(params, "redirect_uri");
  if (!clientId) return { ok: false, message: "client_id is missing" };
  const client = CLIENT_ID_SHAPE.test(clientId) ? await findOAuthClient({ clientId }) : null;
  if (!client) return { ok: false, message: "this client is not registered" };
  if (!redirectUri || !redirectUriMatches(client.redirectUris, redirectUri))
    return { ok: false, message: "redirect_uri is missing or not one this client registered" };
  const state = single(params, "state");
  const parsed = AuthorizeParams.safeParse(params);
  if (!parsed.success)
    return {
      ok: false,
      message: parsed.error.issues[0]?.message ?? "invalid request",
      redirectTo: errorRedirect(
        redirectUri,
        "invalid_request",
        parsed.error.issues[0]?.message ?? "invalid request",
        state?.slice(0, 2000),
      ),
    };
  const resourceUrl = mcpResource();
  if (parsed.data.resource !== undefined && parsed.data.resource !== resourceUrl) {
    return {
      ok: false,
      message: "resource is not this server's",
      redirectTo: errorRedirect(redirectUri, "invalid_target", `resource must be ${resourceUrl}`, parsed.data.state),
    };
  }
  return {
    ok: true,
    request: {
      ...parsed.data,
      client_id: clientId,
      redirect_uri: redirectUri,
      clientName: client.name,
      clientDbId: client.id,
      resourceUrl,
    },
  };
}

export const ConsentBody = z
  .object({
    params: z.record(z.string(), z.string().max(4000)),
    decision: z.enum(["approve", "deny"]),
    mode: z.enum(TOOL_MODES).default("chat_safe"),
    agentId: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-', at most 64")
      .optional(),
  })
  .strict();

/**
 * The signed-in user's answer on the consent page. The request is checked again from scratch (the page's copy is
 * the client's claim), and the answer is where the browser goes next: the client's redirect URI with a code or an
 * error. Never a redirect to a URI the client did not register.
 */
export async function decideAuthorization({
  user,
  body,
}: {
  user: { id: string };
  body: z.infer<typeof ConsentBody>;
}): Promise<{ redirectTo: string }> {
  const check = await checkAuthorizationRequest(body.params);
  if (!check.ok) {
    if (check.redirectTo) return { redirectTo: check.redirectTo };
    throw new AppError("BAD_REQUEST", check.message);
  }
  const { request } = check;
  if (body.decision === "deny") {
    await appendAudit({
      action: "oauth.consent_denied",
      actorId: user.id,
      decision: "deny",
      details: { clientId: request.client_id },
    });
    return { redirectTo: errorRedirect(request.redirect_uri, "access_denied", "the user declined", request.state) };
  }
  const code = secret("tgk_");
  const { grantId } = await insertOAuthGrantWithCode({
    userId: user.id,
    clientDbId: request.clientDbId,
    resource: request.resourceUrl,
    mode: body.mode,
    agentId: body.agentId ?? null,
    code: {
      codeHash: hashSecret(code),
      redirectUri: request.redirect_uri,
      codeChallenge: request.code_challenge,
      expiresAt: new Date(Date.now() + CODE_TTL_MS),
    },
  });
  await appendAudit({
    action: "oauth.consent_granted",
    actorId: user.id,
    decision: "allow",
    details: { grantId, clientId: request.client_id, mode: body.mode, agentId: body.agentId ?? null },
  });
  const url = new URL(request.redirect_uri);
  url.searchParams.set("code", code);
  if (request.state !== undefined) url.searchParams.set("state", request.state);
  url.searchParams.set("iss", publicBaseUrl());
  return { redirectTo: url.toString() };
}

// ---------------------------------------------------------------------------------------------- token endpoint

const CodeGrant = z.object({
  grant_type: z.literal("authorization_code"),
  code: z.string().min(1).max(200),
  code_verifier: z.string({ error: "code_verifier is required (PKCE)" }).min(1).max(200),
  redirect_uri: z.string({ error: "redirect_uri is required" }).max(2000),
  client_id: z.string({ error: "client_id is required" }).max(200),
  resource: z.string().max(2000).optional(),
});
const RefreshGrant = z.object({
  grant_type: z.literal("refresh_token"),
  refresh_token: z.string().min(1).max(200),
  client_id: z.string({ error: "client_id is required" }).max(200),
  resource: z.string().max(2000).optional(),
  scope: z.string().max(1000).optional(),
});

function newPair(now: Date): { access: string; refresh: string; rows: NewOAuthToken[]; expiresIn: number } {
  const expiresIn = loadConfig().OAUTH_ACCESS_TOKEN_TTL_SECONDS;
  const access = secret("tgo_");
  const refresh = secret("tgr_");
  return {
    access,
    refresh,
    expiresIn,
    rows: [
      { tokenHash: hashSecret(access), kind: "access", expiresAt: new Date(now.getTime() + expiresIn * 1000) },
      { tokenHash: hashSecret(refresh), kind: "refresh", expiresAt: new Date(now.getTime() + REFRESH_TTL_MS) },
    ],
  };
}

function tokenAnswer(pair: ReturnType<typeof newPair>) {
  return {
    access_token: pair.access,
    token_type: "Bearer",
    expires_in: pair.expiresIn,
    refresh_token: pair.refresh,
    scope: "mcp",
  };
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "(body)"}: ${issue.message}` : "invalid request";
}

/** The token endpoint (form-encoded parameters, public clients). */
export async function exchangeToken(form: Record<string, string>, now = new Date()) {
  if (form.grant_type === "authorization_code") {
    const parsed = CodeGrant.safeParse(form);
    if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
    const p = parsed.data;
    const code = await consumeOAuthCode({ codeHash: hashSecret(p.code), now });
    if (!code) throw new InvalidGrantError("the code is not valid");
    if (code.reused) {
      // A code presented twice leaked somewhere: everything issued under it ends (OAuth 2.1 section 4.1.3).
      await revokeOAuthGrant({ grantId: code.grant.id, at: now });
      await appendAudit({
        action: "oauth.code_replayed",
        actorId: code.grant.userId,
        decision: "deny",
        details: { grantId: code.grant.id },
      });
      throw new InvalidGrantError("the code was already used");
    }
    if (code.expiresAt <= now || code.grant.revokedAt) throw new InvalidGrantError("the code has expired");
    if (code.grant.client.clientId !== p.client_id)
      throw new InvalidGrantError("the code was issued to another client");
    if (code.redirectUri !== p.redirect_uri)
      throw new InvalidGrantError("redirect_uri differs from the authorization request's");
    if (p.resource !== undefined && p.resource !== code.grant.resource)
      throw new InvalidTargetError("resource differs from the authorization request's");
    if (!pkceMatches(p.code_verifier, code.codeChallenge))
      throw new InvalidGrantError("code_verifier does not match the code_challenge");
    const pair = newPair(now);
    await insertOAuthTokens({ grantId: code.grant.id, tokens: pair.rows });
    return tokenAnswer(pair);
  }
  if (form.grant_type === "refresh_token") {
    const parsed = RefreshGrant.safeParse(form);
    if (!parsed.success) throw new InvalidRequestError(firstIssue(parsed.error));
    const p = parsed.data;
    const pair = newPair(now);
    const rotated = await rotateOAuthRefreshToken({
      tokenHash: hashSecret(p.refresh_token),
      clientId: p.client_id,
      now,
      next: () => pair.rows,
    });
    if (!rotated || rotated.wrongClient) throw new InvalidGrantError("the refresh token is not valid");
    if (rotated.reused) {
      // A rotated refresh token came back: one of its two holders is not the client. End the grant for both.
      await revokeOAuthGrant({ grantId: rotated.grant.id, at: now });
      await appendAudit({
        action: "oauth.refresh_replayed",
        actorId: rotated.grant.userId,
        decision: "deny",
        details: { grantId: rotated.grant.id },
      });
      throw new InvalidGrantError("the refresh token was already used");
    }
    if (rotated.expiresAt <= now || rotated.grant.revokedAt)
      throw new InvalidGrantError("the refresh token has expired or was revoked");
    if (p.resource !== undefined && p.resource !== rotated.grant.resource)
      throw new InvalidTargetError("resource differs from the grant's");
    return tokenAnswer(pair);
  }
  throw new UnsupportedGrantTypeError("grant_type must be authorization_code or refresh_token");
}

/** RFC 7009: revoking a refresh token ends its grant; an access token ends alone. Unknown tokens are not an error. */
export async function revokeOAuthTokenRequest(form: Record<string, string>, now = new Date()): Promise<void> {
  const token = form.token;
  if (!token || token.length > 200) throw new InvalidRequestError("token is required");
  const found = await findOAuthTokenGrant({ tokenHash: hashSecret(token) });
  if (!found || found.grant.client.clientId !== form.client_id) return;
  if (found.kind === "refresh") await revokeOAuthGrant({ grantId: found.grant.id, at: now });
  else await revokeOAuthTokenById({ id: found.id, at: now });
}

// ---------------------------------------------------------------------------------------------- bearer

export type OAuthPrincipal = TokenPrincipal & {
  oauth: { accessTokenId: string; grantId: string; clientId: string; expiresAt: Date };
};

export function looksLikeOAuthAccessToken(value: string): boolean {
  return ACCESS_SHAPE.test(value);
}

/** Null unless the access token is live, for this server's /mcp, under a live grant of an active user. */
export async function authenticateOAuthBearer(value: string, now = new Date()): Promise<OAuthPrincipal | null> {
  if (!ACCESS_SHAPE.test(value)) return null;
  const found = await findOAuthAccessToken({ tokenHash: hashSecret(value) });
  if (!found || found.userDisabled || found.token.revokedAt || found.token.expiresAt <= now || found.grant.revokedAt)
    return null;
  // Audience: a token minted for another resource (or before PUBLIC_BASE_URL changed) is not for this one.
  if (found.grant.resource !== mcpResource()) return null;
  const mode = (TOOL_MODES as readonly string[]).includes(found.grant.mode)
    ? (found.grant.mode as ToolMode)
    : "chat_safe";
  return {
    tokenId: found.grant.id,
    tokenName: `OAuth: ${found.grant.client.name}`,
    agentId: found.grant.agentId,
    mode,
    expiresAt: found.token.expiresAt,
    user: found.user,
    oauth: {
      accessTokenId: found.token.id,
      grantId: found.grant.id,
      clientId: found.grant.client.clientId,
      expiresAt: found.token.expiresAt,
    },
  };
}

/** Why an OAuth principal's authority has ended, read fresh (token or grant revoked, token expired, user deactivated). */
export async function oauthPrincipalEnd(
  principal: OAuthPrincipal,
  now = new Date(),
): Promise<"TOKEN_EXPIRED" | "TOKEN_REVOKED" | null> {
  const state = await findOAuthTokenState({ tokenId: principal.oauth.accessTokenId });
  if (!state || state.revokedAt || state.grant.revokedAt || state.grant.user.disabledAt) return "TOKEN_REVOKED";
  if (state.expiresAt <= now) return "TOKEN_EXPIRED";
  return null;
}
