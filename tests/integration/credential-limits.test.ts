// Issue 29, "limits on every write a member can repeat": credential writes (a new access token, a change of one's own
// password) share one per-user budget, CREDENTIAL_WRITES_PER_MINUTE, over real HTTP on an app of its own per
// database (its limit is low). Revoking is never limited; bad input is refused before it costs anything.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEMO_PASSWORD, startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase } from "../support/databases";
import { signedIn, type HttpClient } from "../support/http-client";
import { createDb, type Db } from "@/lib/db/client";
import { hashPassword } from "@/lib/auth/password";

const CREDENTIAL_WRITES = 3;

describe.each(databaseTargets())("credential write limits (%s)", (_kind, make) => {
  let app: RunningApp;
  let db: Db;
  let drop: (() => Promise<void>) | undefined;
  async function newMember(name: string): Promise<{ id: string; email: string; client: HttpClient }> {
    const email = `${name}-${Date.now()}-${Math.random().toString(36).slice(2, 6)}@example.com`;
    const user = await db.user.create({
      data: { email, passwordHash: await hashPassword(DEMO_PASSWORD), roles: { create: [{ role: "member" }] } },
    });
    return { id: user.id, email, client: await signedIn(app.url, email) };
  }
  const newToken = (client: HttpClient, body: unknown = { name: `t-${Math.random().toString(36).slice(2, 8)}` }) =>
    client.json("/api/tokens", { method: "POST", body });

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    app = await startApp({ databaseUrl: target.url, env: { CREDENTIAL_WRITES_PER_MINUTE: String(CREDENTIAL_WRITES) } });
    db = createDb(target.url);
  }, 180_000);

  afterAll(async () => {
    await app?.stop();
    await db?.$disconnect();
    vi.resetModules();
    await drop?.();
  });

  it("the 4th token in the window is refused with 429 and Retry-After, and no token is made; revoking still works; another member is untouched", async () => {
    const a = await newMember("tok");
    const made = [];
    for (let i = 0; i < CREDENTIAL_WRITES; i++) {
      const res = await newToken(a.client);
      expect(res.status).toBe(201);
      made.push(res.body.accessToken.id as string);
    }
    const refused = await a.client.fetch("/api/tokens", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "one too many" }),
    });
    expect(refused.status).toBe(429);
    const seconds = Number(refused.headers.get("retry-after"));
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    const body = await refused.json();
    expect(body.error.code).toBe("RATE_LIMITED");
    expect(JSON.stringify(body)).not.toMatch(/tgp_/);
    expect(await db.accessToken.count({ where: { userId: a.id } })).toBe(CREDENTIAL_WRITES);
    // Revoking is never limited.
    for (const id of made) expect((await a.client.json(`/api/tokens/${id}`, { method: "DELETE" })).status).toBe(200);
    // Still limited after revoking: a revoke does not give the budget back.
    expect((await newToken(a.client)).status).toBe(429);
    const b = await newMember("tok-other");
    expect((await newToken(b.client)).status).toBe(201);
  });

  it("a password change and token creation share the budget", async () => {
    const a = await newMember("pw");
    expect((await newToken(a.client)).status).toBe(201);
    expect((await newToken(a.client)).status).toBe(201);
    const changed = await a.client.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: DEMO_PASSWORD, newPassword: "another-password-1" },
    });
    expect(changed.status).toBe(200);
    // The change signed every session out: sign in again with the new password; the budget is the user's, not the session's.
    const again = await signedIn(app.url, a.email, "another-password-1");
    expect((await newToken(again)).status).toBe(429);
    const second = await again.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: "another-password-1", newPassword: "third-password-1" },
    });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe("RATE_LIMITED");
    // The refused change did not happen: the second password still signs in.
    await signedIn(app.url, a.email, "another-password-1");
  });

  it("bad input is refused (4xx) before it costs any of the budget", async () => {
    const a = await newMember("bad");
    for (const body of [{}, { name: "" }, { name: "x", mode: "root" }, { name: "x", extra: 1 }, "not json"]) {
      const res = await newToken(a.client, body);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.status).not.toBe(429);
    }
    expect((await a.client.json("/api/me/password", { method: "POST", body: { newPassword: "short" } })).status).toBe(
      422,
    );
    for (let i = 0; i < CREDENTIAL_WRITES; i++) expect((await newToken(a.client)).status).toBe(201);
  });

  it("a burst of 12 concurrent creations by one member makes at most the budget's tokens", async () => {
    const a = await newMember("race");
    const results = await Promise.all(Array.from({ length: 12 }, () => newToken(a.client)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201).length).toBe(CREDENTIAL_WRITES);
    expect(statuses.filter((s) => s !== 201).every((s) => s === 429)).toBe(true);
    expect(await db.accessToken.count({ where: { userId: a.id } })).toBe(CREDENTIAL_WRITES);
  });
});
