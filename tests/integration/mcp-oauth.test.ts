// Issue 30: OAuth 2.1 for the MCP gateway over real HTTP, against an app of its own per database whose
// PUBLIC_BASE_URL is its own address (the SDK client discovers everything from there). The official SDK client
// does the whole flow (resource metadata, authorization server metadata, dynamic registration, PKCE S256,
// consent by the signed-in member, code exchange, /mcp with the bearer); then every attack on it fails.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { UnauthorizedError, type OAuthClientProvider } from "@modelcontextprotocol/sdk/client/auth.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import { createDb, type Db } from "@/lib/db/client";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn, signedInWithOwnPassword } from "../support/http-client";
import { setPolicy, until } from "../support/approvals-helpers";

const REDIRECT = "http://127.0.0.1:33333/callback";
/** Enough for every registration the tests before the ceiling test make. */
const REGISTRATIONS = 40;

/** An in-memory client as an MCP host keeps one: what the SDK asks it to store, it stores. */
class MemoryProvider implements OAuthClientProvider {
  info?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = "";
  authorizationUrl?: URL;
  constructor(readonly redirect = REDIRECT) {}
  get redirectUrl() {
    return this.redirect;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: "vitest OAuth client",
      redirect_uris: [this.redirect],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  state() {
    return "state-" + randomBytes(6).toString("hex");
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

const verifierPair = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

describe.each(databaseTargets())("MCP OAuth 2.1 (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;
  let member: HttpClient;
  let admin: HttpClient;
  let owner: HttpClient;
  let base: string;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    app = await startApp({
      databaseUrl: target.url,
      port,
      env: {
        PUBLIC_BASE_URL: base,
        OAUTH_MAX_REGISTRATIONS_PER_HOUR: String(REGISTRATIONS),
        OAUTH_WRITES_PER_MINUTE: "1000",
        OAUTH_PRUNE_INTERVAL_SECONDS: "10",
        // Long enough that a call cut short by its token's revocation cannot be mistaken for one that timed out.
        MCP_APPROVAL_WAIT_SECONDS: "120",
      },
    });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
    admin = await signedIn(app.url, "admin@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    // The agent id the SDK test's consent binds its grant to (an undefined agent fails closed).
    await setPolicy(db, { agents: { "vitest-agent": { name: "Vitest agent", usableBy: { roles: ["member"] } } } });
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await app?.stop();
    await target?.drop?.();
  });

  const form = (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(params),
    });
  const rpcList = (token: string) =>
    fetch(`${app.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });

  async function register(redirectUris = [REDIRECT]): Promise<string> {
    const res = await fetch(`${app.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "attack-test", redirect_uris: redirectUris }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return (await res.json()).client_id;
  }

  /** Consent as `who`, as the page's script does; the answer is where the browser goes next. */
  async function consent(who: HttpClient, params: Record<string, string>, extra: Record<string, unknown> = {}) {
    return who.json("/api/oauth/consent", { method: "POST", body: { params, decision: "approve", ...extra } });
  }

  /** A code for a fresh client by a hand-made request (for attacks on the token endpoint). */
  async function codeFor(who = member, redirect = REDIRECT) {
    const clientId = await register([redirect]);
    const { verifier, challenge } = verifierPair();
    const params = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      resource: `${base}/mcp`,
    };
    const res = await consent(who, params);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const url = new URL(res.body.redirectTo);
    return { clientId, verifier, code: url.searchParams.get("code")!, url };
  }

  async function tokensFor(who = member) {
    const { clientId, verifier, code } = await codeFor(who);
    const res = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: `${base}/mcp`,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return { clientId, ...(await res.json()) } as {
      clientId: string;
      access_token: string;
      refresh_token: string;
      expires_in: number;
    };
  }

  it("the official SDK client: discovery, registration, consent with PKCE S256, code exchange, tools over /mcp, refresh rotation", async () => {
    const provider = new MemoryProvider();
    const mcpUrl = new URL(`${base}/mcp`);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: "vitest-oauth", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${base}/oauth/authorize`);
    expect(authUrl.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authUrl.searchParams.get("resource")).toBe(`${base}/mcp`);
    expect(provider.info?.client_id).toMatch(/^tgc_/);

    // The consent page for the signed-in member names the client; signed out, it sends to sign-in.
    const page = await member.fetch(`${authUrl.pathname}${authUrl.search}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("vitest OAuth client");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    const signedOut = await fetch(`${app.url}${authUrl.pathname}${authUrl.search}`, { redirect: "manual" });
    expect([303, 307]).toContain(signedOut.status);
    expect(signedOut.headers.get("location")).toContain("/login?next=");

    const decided = await consent(member, Object.fromEntries(authUrl.searchParams), { agentId: "vitest-agent" });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    const back = new URL(decided.body.redirectTo);
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get("state")).toBe(authUrl.searchParams.get("state"));
    expect(back.searchParams.get("iss")).toBe(base);
    await first.finishAuth(back.searchParams.get("code")!);
    expect(provider.saved?.access_token).toMatch(/^tgo_/);
    expect(provider.saved?.refresh_token).toMatch(/^tgr_/);

    const client = new Client({ name: "vitest-oauth", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toContain("current_time");
      const called = await client.callTool({ name: "current_time", arguments: {} });
      expect(called.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
    // Stored as hashes only; the grant carries the consent's mode (default chat_safe) and agent id.
    const grant = await db.oAuthGrant.findFirstOrThrow({ where: { client: { clientId: provider.info!.client_id } } });
    expect(grant).toMatchObject({
      mode: "chat_safe",
      agentId: "vitest-agent",
      resource: `${base}/mcp`,
      revokedAt: null,
    });
    const rows = await db.oAuthToken.findMany({ where: { grantId: grant.id } });
    expect(JSON.stringify(rows)).not.toContain(provider.saved!.access_token.slice(4));

    // Refresh: a new pair; the old refresh token is spent; replaying it ends the grant (both pairs).
    const old = provider.saved!;
    const refreshed = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: old.refresh_token!,
      client_id: provider.info!.client_id,
    });
    expect(refreshed.status).toBe(200);
    const pair = await refreshed.json();
    expect(pair.refresh_token).not.toBe(old.refresh_token);
    expect((await rpcList(pair.access_token)).status).toBe(200);
    const replay = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: old.refresh_token!,
      client_id: provider.info!.client_id,
    });
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe("invalid_grant");
    expect((await rpcList(pair.access_token)).status).toBe(401);
    const afterReplay = await form("/oauth/token", {
      grant_type: "refresh_token",
      refresh_token: pair.refresh_token,
      client_id: provider.info!.client_id,
    });
    expect(afterReplay.status).toBe(400);
  });

  it("metadata comes from PUBLIC_BASE_URL, never the Host header; the OAuth endpoints are not pages", async () => {
    const res = await fetch(`${app.url}/.well-known/oauth-authorization-server`, {
      headers: { host: "evil.example", "x-forwarded-host": "evil.example" },
    });
    expect(res.status).toBe(200);
    const meta = await res.json();
    expect(meta).toMatchObject({
      issuer: base,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      code_challenge_methods_supported: ["S256"],
    });
    expect(JSON.stringify(meta)).not.toContain("evil.example");
    const prm = await (
      await fetch(`${app.url}/.well-known/oauth-protected-resource/mcp`, { headers: { host: "evil.example" } })
    ).json();
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    // A cross-origin POST with no cookie reaches the token endpoint (native and browser clients), as an OAuth error.
    const cross = await form("/oauth/token", { grant_type: "authorization_code" }, { origin: "http://other.example" });
    expect(cross.status).toBe(400);
    expect((await cross.json()).error).toBe("invalid_request");
    expect(cross.headers.get("cache-control")).toBe("no-store");
  });

  it("redirect URIs match exactly (a loopback one on any port); a mismatch never redirects", async () => {
    const clientId = await register(["http://127.0.0.1:40000/cb", "https://app.example/cb"]);
    const { challenge } = verifierPair();
    const ask = (redirect: string) => ({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      code_challenge: challenge,
      code_challenge_method: "S256",
    });
    // Loopback: another port is the same client (RFC 8252 7.3).
    expect((await consent(member, ask("http://127.0.0.1:51234/cb"))).status).toBe(200);
    for (const bad of [
      "https://app.example/cb/",
      "https://app.example/cb?x=1",
      "https://APP.example/cb",
      "https://evil.example/cb",
      "http://127.0.0.1:40000/cb2",
      "http://localhost:40000/cb",
      "https://app.example.evil.example/cb",
    ]) {
      const res = await consent(member, ask(bad));
      expect(res.status, bad).toBe(400);
      expect(JSON.stringify(res.body)).not.toContain("redirectTo");
      const page = await member.fetch(`/oauth/authorize?${new URLSearchParams(ask(bad))}`);
      expect(page.status, bad).toBe(200);
      expect(page.headers.get("location")).toBeNull();
    }
    // Registering an http URI that is not loopback, or a javascript: one, is refused.
    for (const uris of [["http://app.example/cb"], ["javascript:alert(1)"], ["https://app.example/cb#frag"]]) {
      const res = await fetch(`${app.url}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: uris }),
      });
      expect(res.status, uris[0]).toBe(400);
      expect((await res.json()).error).toBe("invalid_client_metadata");
    }
  });

  it("PKCE is S256 only and required; a wrong verifier fails; a code is single use and a replay revokes its tokens", async () => {
    const clientId = await register();
    const { challenge } = verifierPair();
    const base_ = { response_type: "code", client_id: clientId, redirect_uri: REDIRECT, state: "xyz" };
    for (const params of [
      { ...base_ },
      { ...base_, code_challenge: challenge, code_challenge_method: "plain" },
      { ...base_, code_challenge: challenge },
      { ...base_, code_challenge: "short", code_challenge_method: "S256" },
    ]) {
      const res = await consent(member, params);
      expect(res.status).toBe(200);
      const url = new URL(res.body.redirectTo);
      expect(url.searchParams.get("error")).toBe("invalid_request");
      expect(url.searchParams.get("code")).toBeNull();
      expect(url.searchParams.get("state")).toBe("xyz");
    }
    const wrong = await codeFor();
    const bad = await form("/oauth/token", {
      grant_type: "authorization_code",
      code: wrong.code,
      code_verifier: verifierPair().verifier,
      redirect_uri: REDIRECT,
      client_id: wrong.clientId,
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe("invalid_grant");
    const noVerifier = await codeFor();
    expect(
      (
        await form("/oauth/token", {
          grant_type: "authorization_code",
          code: noVerifier.code,
          redirect_uri: REDIRECT,
          client_id: noVerifier.clientId,
        })
      ).status,
    ).toBe(400);

    const { clientId: cid, verifier, code } = await codeFor();
    const exchange = () =>
      form("/oauth/token", {
        grant_type: "authorization_code",
        code,
        code_verifier: verifier,
        redirect_uri: REDIRECT,
        client_id: cid,
      });
    // Two exchanges at once: one wins.
    const [a, b] = await Promise.all([exchange(), exchange()]);
    expect([a.status, b.status].sort()).toEqual([200, 400]);
    const winner = (await (a.status === 200 ? a : b).json()).access_token;
    // The loser's attempt was a replay: the winner's token is revoked with the grant.
    expect((await rpcList(winner)).status).toBe(401);
    expect((await exchange()).status).toBe(400);
  });

  it("a code only for its client and redirect URI; a token only for this resource; PATs and OAuth tokens are not interchangeable", async () => {
    const other = await register();
    const one = await codeFor();
    expect(
      (
        await form("/oauth/token", {
          grant_type: "authorization_code",
          code: one.code,
          code_verifier: one.verifier,
          redirect_uri: REDIRECT,
          client_id: other,
        })
      ).status,
    ).toBe(400);
    const two = await codeFor(member, "http://127.0.0.1:40001/cb");
    expect(
      (
        await form("/oauth/token", {
          grant_type: "authorization_code",
          code: two.code,
          code_verifier: two.verifier,
          redirect_uri: "http://127.0.0.1:40002/cb",
          client_id: two.clientId,
        })
      ).status,
    ).toBe(400);
    // Another resource (an upstream server's) is refused at authorization and at the token endpoint.
    const clientId = await register();
    const { challenge, verifier } = verifierPair();
    const asked = await consent(member, {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: "https://upstream.example/mcp",
    });
    expect(new URL(asked.body.redirectTo).searchParams.get("error")).toBe("invalid_target");
    const three = await codeFor();
    const wrongTarget = await form("/oauth/token", {
      grant_type: "authorization_code",
      code: three.code,
      code_verifier: three.verifier,
      redirect_uri: REDIRECT,
      client_id: three.clientId,
      resource: "https://upstream.example/mcp",
    });
    expect(wrongTarget.status).toBe(400);
    expect((await wrongTarget.json()).error).toBe("invalid_target");
    // A token whose grant names another resource (PUBLIC_BASE_URL changed since) is not accepted.
    const t = await tokensFor();
    const grant = await db.oAuthGrant.findFirstOrThrow({ where: { client: { clientId: t.clientId } } });
    await db.oAuthGrant.update({ where: { id: grant.id }, data: { resource: "https://old.example/mcp" } });
    expect((await rpcList(t.access_token)).status).toBe(401);
    // A refresh token is not an access token; a forged one of the right shape is nothing.
    const fresh = await tokensFor();
    expect((await rpcList(fresh.refresh_token)).status).toBe(401);
    expect((await rpcList(`tgo_${randomBytes(32).toString("base64url")}`)).status).toBe(401);
    expect(verifier).toBeTruthy();
  });

  it("consent is CSRF-safe: cross-origin, form-encoded or signed-out answers are refused", async () => {
    const clientId = await register();
    const { challenge } = verifierPair();
    const params = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
    };
    const cross = await member.fetch("/api/oauth/consent", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "http://evil.example" },
      body: JSON.stringify({ params, decision: "approve" }),
    });
    expect(cross.status).toBe(403);
    const simple = await member.fetch("/api/oauth/consent", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: JSON.stringify({ params, decision: "approve" }),
    });
    expect(simple.status).toBe(415);
    const anon = await fetch(`${app.url}/api/oauth/consent`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ params, decision: "approve" }),
    });
    expect(anon.status).toBe(401);
    const denied = await consent(member, params, { decision: "deny" });
    expect(new URL(denied.body.redirectTo).searchParams.get("error")).toBe("access_denied");
    expect(await db.oAuthGrant.count({ where: { client: { clientId } } })).toBe(0);
    // The model or client cannot pick a mode outside the enum, nor smuggle fields.
    expect((await consent(member, params, { mode: "god" })).status).toBe(422);
    expect((await consent(member, params, { userId: "someone" })).status).toBe(422);
  });

  it("deactivation, a password change and revocation end OAuth grants", async () => {
    const email = `oauth-${Date.now().toString(36)}@example.com`;
    const made = await admin.json("/api/admin/users", { method: "POST", body: { email, roles: ["member"] } });
    const user = await signedInWithOwnPassword(app.url, email, made.body.temporaryPassword, "an-own-password-0");
    const first = await tokensFor(user);
    expect((await rpcList(first.access_token)).status).toBe(200);
    expect(
      (
        await user.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: "an-own-password-0", newPassword: "a-new-password-1" },
        })
      ).status,
    ).toBe(200);
    expect((await rpcList(first.access_token)).status).toBe(401);
    expect(
      (
        await form("/oauth/token", {
          grant_type: "refresh_token",
          refresh_token: first.refresh_token,
          client_id: first.clientId,
        })
      ).status,
    ).toBe(400);
    const again = await signedIn(app.url, email, "a-new-password-1");
    const second = await tokensFor(again);
    expect((await rpcList(second.access_token)).status).toBe(200);
    expect(
      (await admin.json(`/api/admin/users/${made.body.user.id}/active`, { method: "POST", body: { active: false } }))
        .status,
    ).toBe(200);
    expect((await rpcList(second.access_token)).status).toBe(401);
    await admin.json(`/api/admin/users/${made.body.user.id}/active`, { method: "POST", body: { active: true } });
    expect((await rpcList(second.access_token)).status).toBe(401);
    expect(await db.oAuthGrant.count({ where: { userId: made.body.user.id, revokedAt: null } })).toBe(0);
    // RFC 7009: revoking the refresh token ends the grant; another client's revocation does nothing.
    const third = await tokensFor();
    expect((await form("/oauth/revoke", { token: third.refresh_token, client_id: "tgc_someone_else" })).status).toBe(
      200,
    );
    expect((await rpcList(third.access_token)).status).toBe(200);
    expect((await form("/oauth/revoke", { token: third.refresh_token, client_id: third.clientId })).status).toBe(200);
    expect((await rpcList(third.access_token)).status).toBe(401);
  });

  it("bad input is a 4xx OAuth error, never a 500", async () => {
    const cases: Array<[string, RequestInit]> = [
      ["/oauth/token", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }],
      [
        "/oauth/token",
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=password&username=a",
        },
      ],
      [
        "/oauth/token",
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "grant_type=authorization_code&grant_type=refresh_token",
        },
      ],
      [
        "/oauth/token",
        {
          method: "POST",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "x=" + "a".repeat(20_000),
        },
      ],
      ["/oauth/register", { method: "POST", headers: { "content-type": "application/json" }, body: "{not json" }],
      [
        "/oauth/register",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: "nope" }),
        },
      ],
      [
        "/oauth/register",
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }),
        },
      ],
      ["/oauth/revoke", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "" }],
    ];
    for (const [path, init] of cases) {
      const res = await fetch(`${app.url}${path}`, init);
      expect(res.status, `${path} ${String(init.body).slice(0, 60)}`).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      const body = await res.json();
      expect(typeof body.error).toBe("string");
      expect(JSON.stringify(body)).not.toMatch(/prisma|\/work\/|at .*\.js/i);
    }
  });

  it("a call waiting for an owner ends with TOKEN_REVOKED when its grant is revoked", async () => {
    await setPolicy(db, {
      askRules: ["current_time"],
      agents: { "vitest-agent": { name: "Vitest agent", usableBy: { roles: ["member"] } } },
    });
    try {
      const t = await tokensFor();
      const started = Date.now();
      const call = fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${t.access_token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "current_time", arguments: { timezone: "Europe/Oslo" } },
        }),
      }).then((res) => res.text());
      await until("the approval in the inbox", async () =>
        (
          (await owner.json("/api/approvals?status=pending")).body.approvals as
            Array<{ toolName: string; args: { timezone?: string } }> | undefined
        )?.find((a) => a.toolName === "current_time" && a.args.timezone === "Europe/Oslo"),
      );
      expect((await form("/oauth/revoke", { token: t.refresh_token, client_id: t.clientId })).status).toBe(200);
      const text = await call;
      expect(text).toContain("TOKEN_REVOKED");
      expect(text).not.toContain("APPROVAL_PENDING");
      // Well before the 120 s wait would have ended on its own.
      expect(Date.now() - started).toBeLessThan(100_000);
    } finally {
      await setPolicy(db, { agents: { "vitest-agent": { name: "Vitest agent", usableBy: { roles: ["member"] } } } });
    }
  });

  it("a personal token's call waiting for an owner ends with TOKEN_REVOKED when the token is revoked", async () => {
    await setPolicy(db, {
      askRules: ["current_time"],
      agents: { "vitest-agent": { name: "Vitest agent", usableBy: { roles: ["member"] } } },
    });
    try {
      const made = await member.json("/api/tokens", { method: "POST", body: { name: "revoked-while-waiting" } });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const started = Date.now();
      const call = fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${made.body.token}`,
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: { name: "current_time", arguments: { timezone: "Asia/Tokyo" } },
        }),
      }).then((res) => res.text());
      await until("the approval in the inbox", async () =>
        (
          (await owner.json("/api/approvals?status=pending")).body.approvals as
            Array<{ toolName: string; args: { timezone?: string } }> | undefined
        )?.find((a) => a.toolName === "current_time" && a.args.timezone === "Asia/Tokyo"),
      );
      expect((await member.json(`/api/tokens/${made.body.accessToken.id}`, { method: "DELETE" })).status).toBe(200);
      const text = await call;
      expect(text).toContain("TOKEN_REVOKED");
      expect(text).not.toContain("APPROVAL_PENDING");
      expect(Date.now() - started).toBeLessThan(100_000);
    } finally {
      await setPolicy(db, { agents: { "vitest-agent": { name: "Vitest agent", usableBy: { roles: ["member"] } } } });
    }
  });

  it("expired codes and tokens are pruned; an expired access token is refused at once", async () => {
    const t = await tokensFor();
    const grant = await db.oAuthGrant.findFirstOrThrow({ where: { client: { clientId: t.clientId } } });
    expect(await db.oAuthToken.count({ where: { grantId: grant.id } })).toBe(2);
    const past = new Date(Date.now() - 1000);
    await db.oAuthToken.updateMany({ where: { grantId: grant.id }, data: { expiresAt: past } });
    await db.oAuthCode.updateMany({ where: { grantId: grant.id }, data: { expiresAt: past } });
    expect((await rpcList(t.access_token)).status).toBe(401);
    const live = await tokensFor();
    await until(
      "the expired code and tokens pruned",
      async () =>
        (await db.oAuthToken.count({ where: { grantId: grant.id } })) +
          (await db.oAuthCode.count({ where: { grantId: grant.id } })) ===
        0,
      60_000,
      500,
    );
    // What is still valid stays.
    expect((await rpcList(live.access_token)).status).toBe(200);
  });

  // Last: it spends the registration ceiling for the rest of the hour.
  it("past the global registration ceiling /oauth/register answers 429 with Retry-After", async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < REGISTRATIONS + 2; i++) {
      const res = await fetch(`${app.url}/oauth/register`, {
        method: "POST",
        // Different addresses: the global ceiling holds whoever asks (the per-address limit is the write quota's).
        headers: { "content-type": "application/json", "x-forwarded-for": `198.51.100.${i + 1}` },
        body: JSON.stringify({ redirect_uris: [REDIRECT] }),
      });
      statuses.push(res.status);
      if (res.status === 429) retryAfter = res.headers.get("retry-after");
    }
    expect(statuses).toContain(429);
    expect(statuses.filter((s) => s !== 201 && s !== 429)).toEqual([]);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    expect(await db.oAuthClient.count()).toBeLessThanOrEqual(REGISTRATIONS);
  });
});
