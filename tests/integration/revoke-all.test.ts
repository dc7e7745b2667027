// Issue 30: "revoke everything for this user" and the connected-apps list, over real HTTP on each database with an
// app of its own (its PUBLIC_BASE_URL is its own address, so OAuth tokens are minted for its /mcp). Credentials are
// minted the real way: a personal access token through /api/tokens, an OAuth grant through registration, consent
// and the code exchange; each is shown working on /mcp before it is revoked, and refused (401) after.
import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { freePort, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";

const REDIRECT = "http://127.0.0.1:33333/callback";

describe.each(databaseTargets())("revoke everything, connected apps (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let db: Db;
  let member: HttpClient;
  let other: HttpClient;
  let admin: HttpClient;
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
        OAUTH_MAX_REGISTRATIONS_PER_HOUR: "200",
        OAUTH_WRITES_PER_MINUTE: "1000",
        CREDENTIAL_WRITES_PER_MINUTE: "1000",
      },
    });
    db = createDb(target.url);
    member = await signedIn(app.url, "member@example.com");
    other = await signedIn(app.url, "owner@example.com");
    admin = await signedIn(app.url, "admin@example.com");
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await app?.stop();
    await target?.drop?.();
  });

  const mcpStatus = async (token: string) =>
    (
      await fetch(`${app.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      })
    ).status;
  const form = (path: string, params: Record<string, string>) =>
    fetch(`${app.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(params),
    });

  async function pat(who: HttpClient): Promise<string> {
    const res = await who.json("/api/tokens", {
      method: "POST",
      body: { name: `t-${randomBytes(3).toString("hex")}` },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.token;
  }

  /** A real OAuth grant for `who`: registration, consent with PKCE, code exchange. */
  async function oauth(who: HttpClient, name = "revoke-test app") {
    const reg = await fetch(`${app.url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: name, redirect_uris: [REDIRECT] }),
    });
    expect(reg.status, await reg.clone().text()).toBe(201);
    const clientId = (await reg.json()).client_id as string;
    const verifier = randomBytes(32).toString("base64url");
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    const params = {
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: challenge,
      code_challenge_method: "S256",
      state: "s1",
      resource: `${base}/mcp`,
    };
    const consent = await who.json("/api/oauth/consent", { method: "POST", body: { params, decision: "approve" } });
    expect(consent.status, JSON.stringify(consent.body)).toBe(200);
    const code = new URL(consent.body.redirectTo).searchParams.get("code")!;
    const res = await form("/oauth/token", {
      grant_type: "authorization_code",
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
      resource: `${base}/mcp`,
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string };
    const grant = await db.oAuthGrant.findFirstOrThrow({ where: { client: { clientId } }, select: { id: true } });
    return { clientId, grantId: grant.id, ...tokens };
  }

  const userId = async (who: HttpClient) => (await who.json("/api/me")).body.user.id as string;

  it("POST /api/me/revoke-all ends every token and grant of the caller at once (401 on /mcp), audited; nobody else's; the browser session stays", async () => {
    const token = await pat(member);
    const app1 = await oauth(member);
    const theirs = await pat(other);
    const theirGrant = await oauth(other);
    for (const t of [token, app1.access_token, theirs, theirGrant.access_token]) expect(await mcpStatus(t)).toBe(200);

    const res = await member.json("/api/me/revoke-all", { method: "POST" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.revoked.accessTokens).toBeGreaterThanOrEqual(1);
    expect(res.body.revoked.oauthGrants).toBeGreaterThanOrEqual(1);
    expect(res.body.revoked.oauthTokens).toBeGreaterThanOrEqual(2);
    expect(await mcpStatus(token)).toBe(401);
    expect(await mcpStatus(app1.access_token)).toBe(401);
    // The refresh token cannot mint a new pair either.
    expect(
      (
        await form("/oauth/token", {
          grant_type: "refresh_token",
          refresh_token: app1.refresh_token,
          client_id: app1.clientId,
        })
      ).status,
    ).toBe(400);
    // Another member's credentials are untouched.
    expect(await mcpStatus(theirs)).toBe(200);
    expect(await mcpStatus(theirGrant.access_token)).toBe(200);
    expect((await member.json("/api/me")).status).toBe(200);
    expect((await member.json("/api/me/oauth-grants")).body.grants).toEqual([]);

    const me = await userId(member);
    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "credentials.revoked_all", actorId: me },
      orderBy: { seq: "desc" },
    });
    expect(audit.details).toMatchObject({ userId: me, ...res.body.revoked });
    // Nothing left: a second call revokes nothing.
    expect((await member.json("/api/me/revoke-all", { method: "POST" })).body.revoked).toEqual({
      accessTokens: 0,
      oauthGrants: 0,
      oauthTokens: 0,
    });
  });

  it("two revoke-alls racing count each credential once (one transaction each)", async () => {
    await Promise.all([pat(member), pat(member), oauth(member)]);
    const live = await db.accessToken.count({ where: { user: { email: "member@example.com" }, revokedAt: null } });
    const answers = await Promise.all([
      member.json("/api/me/revoke-all", { method: "POST" }),
      member.json("/api/me/revoke-all", { method: "POST" }),
    ]);
    for (const a of answers) expect(a.status, JSON.stringify(a.body)).toBe(200);
    expect(answers.reduce((n, a) => n + a.body.revoked.accessTokens, 0)).toBe(live);
    expect(answers.reduce((n, a) => n + a.body.revoked.oauthGrants, 0)).toBe(1);
  });

  it("GET /api/me/oauth-grants lists only the caller's live grants; DELETE revokes one (its tokens 401), another's or an unknown id is 404", async () => {
    const a = await oauth(member, "App A");
    const b = await oauth(member, "App B");
    const theirs = await oauth(other, "Their app");
    const listed = await member.json("/api/me/oauth-grants");
    expect(listed.status).toBe(200);
    const ids = listed.body.grants.map((g: { id: string }) => g.id);
    expect(ids).toEqual(expect.arrayContaining([a.grantId, b.grantId]));
    expect(ids).not.toContain(theirs.grantId);
    expect(listed.body.grants.find((g: { id: string }) => g.id === a.grantId)).toMatchObject({
      clientName: "App A",
      mode: "chat_safe",
      agentId: null,
    });

    // Another member's grant: 404 like an unknown one, and it keeps working.
    const forged = await member.json(`/api/me/oauth-grants/${theirs.grantId}`, { method: "DELETE" });
    expect(forged.status).toBe(404);
    expect(await mcpStatus(theirs.access_token)).toBe(200);
    expect((await member.json("/api/me/oauth-grants/nosuchgrant", { method: "DELETE" })).status).toBe(404);
    const bad = await member.json("/api/me/oauth-grants/..%2F..%2Fx", { method: "DELETE" });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    expect(bad.status).toBeLessThan(500);

    const gone = await member.json(`/api/me/oauth-grants/${a.grantId}`, { method: "DELETE" });
    expect(gone.status, JSON.stringify(gone.body)).toBe(200);
    expect(await mcpStatus(a.access_token)).toBe(401);
    expect(await mcpStatus(b.access_token)).toBe(200);
    expect((await member.json(`/api/me/oauth-grants/${a.grantId}`, { method: "DELETE" })).status).toBe(404);
    expect((await member.json("/api/me/oauth-grants")).body.grants.map((g: { id: string }) => g.id)).not.toContain(
      a.grantId,
    );
    await member.json("/api/me/revoke-all", { method: "POST" });
  });

  it("POST /api/admin/users/:id/revoke-all: the admin ends a user's credentials (audited as the admin); unknown id 404; member and owner 403; signed out 401", async () => {
    const token = await pat(member);
    const grant = await oauth(member);
    const memberId = await userId(member);
    for (const who of [member, other]) {
      const denied = await who.json(`/api/admin/users/${memberId}/revoke-all`, { method: "POST" });
      expect(denied.status).toBe(403);
    }
    expect(await mcpStatus(token)).toBe(200);
    expect((await admin.json("/api/admin/users/nosuchuser/revoke-all", { method: "POST" })).status).toBe(404);

    const res = await admin.json(`/api/admin/users/${memberId}/revoke-all`, { method: "POST" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.revoked).toMatchObject({ accessTokens: 1, oauthGrants: 1 });
    expect(await mcpStatus(token)).toBe(401);
    expect(await mcpStatus(grant.access_token)).toBe(401);
    const adminId = await userId(admin);
    const audit = await db.auditLog.findFirstOrThrow({
      where: { action: "credentials.revoked_all", actorId: adminId },
      orderBy: { seq: "desc" },
    });
    expect(audit.details).toMatchObject({ userId: memberId, accessTokens: 1, oauthGrants: 1 });

    const anonymous = new HttpClient(app.url);
    for (const [method, path] of [
      ["POST", "/api/me/revoke-all"],
      ["GET", "/api/me/oauth-grants"],
      ["DELETE", `/api/me/oauth-grants/${grant.grantId}`],
      ["POST", `/api/admin/users/${memberId}/revoke-all`],
    ] as const) {
      expect((await anonymous.json(path, { method })).status, path).toBe(401);
    }
  });
});
