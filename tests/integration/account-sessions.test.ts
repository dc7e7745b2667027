// Issue 32 over real HTTP: the forced password change after an admin-issued one-time password (checked by the
// guards, not the UI), and signed-in devices (AuthSession rows): list, sign one out, sign out everywhere else,
// never another user's, and lastSeenAt written at most once a minute.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, signedIn, signedInWithOwnPassword } from "../support/http-client";
import { appTargets } from "../support/targets";
import { createDb, type Db } from "@/lib/db/client";

const fresh = (tag: string) =>
  `u32-${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}@example.com`;

/** A client whose requests carry this User-Agent (the device list shows it). */
function device(baseUrl: string, userAgent: string): HttpClient {
  const client = new HttpClient(baseUrl);
  const plain = client.fetch.bind(client);
  client.fetch = (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("user-agent", userAgent);
    return plain(path, { ...init, headers });
  };
  return client;
}

async function signInAs(client: HttpClient, email: string, password: string): Promise<HttpClient> {
  expect(await client.signIn(email, password)).toBe(true);
  return client;
}

async function signOut(client: HttpClient): Promise<void> {
  const csrf = await client.json<{ csrfToken: string }>("/api/auth/csrf");
  await client.fetch("/api/auth/signout", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken: csrf.body.csrfToken }),
  });
}

type Device = {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  userAgent: string | null;
  ip: string | null;
  current: boolean;
};

describe.each(appTargets())("account: forced password change and devices (%s)", (_kind, app) => {
  let admin: HttpClient;
  let db: Db;

  beforeAll(async () => {
    admin = await signedIn(app.url, "admin@example.com");
    db = createDb(app.databaseUrl);
  });

  afterAll(async () => {
    await db?.$disconnect();
  });

  async function newAccount(tag: string): Promise<{ id: string; email: string; otp: string }> {
    const email = fresh(tag);
    const made = await admin.json("/api/admin/users", { method: "POST", body: { email, roles: ["member"] } });
    expect(made.status).toBe(201);
    return { id: made.body.user.id, email, otp: made.body.temporaryPassword };
  }

  async function expectChangeRequired(client: HttpClient) {
    for (const [method, path, body] of [
      ["GET", "/api/me"],
      ["GET", "/api/sessions"],
      ["POST", "/api/sessions", {}],
      ["GET", "/api/tokens?scope=mine"],
      ["GET", "/api/me/sessions"],
      ["POST", "/api/me/sessions/revoke-others", {}],
      ["GET", "/api/me/oauth-grants"],
      ["POST", "/api/me/revoke-all"],
      ["GET", "/api/agents"],
    ] as Array<[string, string, unknown?]>) {
      const res = await client.json(path, { method, body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code, `${method} ${path}`).toBe("PASSWORD_CHANGE_REQUIRED");
    }
    // The live stream (the lean handler reads the cookie itself) is refused the same way.
    const stream = await client.fetch("/api/me/events");
    expect(stream.status).toBe(403);
    await stream.body?.cancel();
    // Every page sends to the change form; the sign-in page too (the person is signed in).
    for (const path of ["/chat", "/settings", "/admin", "/login"]) {
      const page = await client.fetch(path);
      expect([303, 307, 308], path).toContain(page.status);
      const to = new URL(page.headers.get("location")!, app.url);
      // Pages outside the app's shell send to sign-in first, which sends on.
      if (to.pathname === "/login") {
        const next = await client.fetch(`${to.pathname}${to.search}`);
        expect(new URL(next.headers.get("location")!, app.url).pathname, path).toBe("/change-password");
      } else expect(to.pathname, path).toBe("/change-password");
    }
    expect((await client.fetch("/change-password")).status).toBe(200);
    // The session read still answers (the sign-in form and scripts use it).
    expect((await client.json("/api/auth/session")).body.user.email).toBeTruthy();
  }

  it("a new account's one-time password: everything refused until the user chooses their own, then allowed", async () => {
    const account = await newAccount("new");
    const person = await signedIn(app.url, account.email, account.otp);
    await expectChangeRequired(person);
    // The one-time password cannot be "changed" to itself, and a wrong current one is refused.
    const same = await person.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: account.otp, newPassword: account.otp },
    });
    expect(same.status).toBe(422);
    const wrong = await person.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: "not-it-at-all", newPassword: "my-own-password-1" },
    });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error.code).toBe("FORBIDDEN");
    await expectChangeRequired(person);
    const changed = await person.json("/api/me/password", {
      method: "POST",
      body: { currentPassword: account.otp, newPassword: "my-own-password-1" },
    });
    expect(changed.status).toBe(200);
    // The change ends every session, this one included.
    expect((await person.json("/api/me")).status).toBe(401);
    const again = await signedIn(app.url, account.email, "my-own-password-1");
    expect((await again.json("/api/me")).status).toBe(200);
    expect((await again.json("/api/sessions")).status).toBe(200);
    expect((await again.fetch("/chat")).status).toBe(200);
    // Nothing to change any more: the form sends to Settings.
    expect(new URL((await again.fetch("/change-password")).headers.get("location")!, app.url).pathname).toBe(
      "/settings",
    );
  });

  it("an admin reset sets the required change again; sign-out still works meanwhile", async () => {
    const account = await newAccount("reset");
    const person = await signedInWithOwnPassword(app.url, account.email, account.otp, "my-own-password-2");
    expect((await person.json("/api/me")).status).toBe(200);
    const reset = await admin.json(`/api/admin/users/${account.id}/password`, { method: "POST", body: {} });
    expect(reset.status).toBe(200);
    expect((await person.json("/api/me")).status).toBe(401);
    const after = await signedIn(app.url, account.email, reset.body.temporaryPassword);
    await expectChangeRequired(after);
    await signOut(after);
    expect((await after.json("/api/auth/session")).body).toBeNull();
    const back = await signedInWithOwnPassword(
      app.url,
      account.email,
      reset.body.temporaryPassword,
      "my-own-password-3",
    );
    expect((await back.json("/api/me")).status).toBe(200);
  });

  it("devices: listed with this one marked; one signed out, then every other; the others are refused at once, this one stays", async () => {
    const account = await newAccount("dev");
    await signedInWithOwnPassword(app.url, account.email, account.otp, "device-password-1");
    const longAgent = `Mozilla/5.0 (X11; Linux x86_64)\t Firefox/140.0 ${"x".repeat(400)}`;
    const a = await signInAs(device(app.url, longAgent), account.email, "device-password-1");
    const b = await signInAs(
      device(app.url, "Device-B (iPhone; CPU iPhone OS 18_0) Safari/605.1"),
      account.email,
      "device-password-1",
    );
    const listed = await a.json<{ sessions: Device[] }>("/api/me/sessions");
    expect(listed.status).toBe(200);
    const mine = listed.body.sessions;
    // The session that replaced the one-time password ended with the change; the sign-in after it, a and b are live.
    expect(mine).toHaveLength(3);
    expect(mine.filter((d) => d.current)).toHaveLength(1);
    const aRow = mine.find((d) => d.current)!;
    const bRow = mine.find((d) => d.userAgent?.startsWith("Device-B"))!;
    expect(aRow.userAgent!.length).toBeLessThanOrEqual(200);
    expect(aRow.userAgent).toMatch(/^Mozilla\/5\.0 \(X11; Linux x86_64\)\s+Firefox/);
    expect(aRow.userAgent).not.toMatch(/[\u0000-\u001f]/);
    expect(bRow.userAgent).toContain("Device-B");
    expect((await b.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions.find((d) => d.current)!.id).toBe(
      bRow.id,
    );

    // Sign out b from a: b's next request is refused, a goes on; the same id again is gone.
    const out = await a.json(`/api/me/sessions/${bRow.id}`, { method: "DELETE" });
    expect(out.status).toBe(200);
    expect(out.body).toEqual({ signedOut: true, current: false });
    expect((await b.json("/api/me")).status).toBe(401);
    // Auth.js's own session read answers as signed out too (it only checks the token's signature and expiry).
    expect((await b.json("/api/auth/session")).body).toBeNull();
    expect((await a.json("/api/auth/session")).body.user.email).toBe(account.email);
    expect((await b.fetch("/chat")).headers.get("location")).toMatch(/ended=1/);
    expect((await a.json("/api/me")).status).toBe(200);
    expect((await a.json(`/api/me/sessions/${bRow.id}`, { method: "DELETE" })).status).toBe(404);

    // Two more devices, then "sign out everywhere else".
    const c = await signInAs(device(app.url, "Device-C"), account.email, "device-password-1");
    const d = await signInAs(device(app.url, "Device-D"), account.email, "device-password-1");
    const others = await a.json("/api/me/sessions/revoke-others", { method: "POST", body: {} });
    expect(others.status).toBe(200);
    expect(others.body).toEqual({ revoked: 3 });
    expect((await c.json("/api/me")).status).toBe(401);
    expect((await d.json("/api/me")).status).toBe(401);
    expect((await a.json("/api/me")).status).toBe(200);
    expect((await a.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions.map((s) => s.id)).toEqual([
      aRow.id,
    ]);
    const audit = await admin.json(`/api/audit?action=user.sessions_revoked_others&limit=50`);
    expect(
      audit.body.entries.find((e: { details: { userId?: string } }) => e.details.userId === account.id)?.details,
    ).toMatchObject({ keptSessionId: aRow.id, revoked: 3 });
    const one = await admin.json(`/api/audit?action=user.session_revoked&limit=50`);
    expect(one.body.entries.some((e: { details: { sessionId?: string } }) => e.details.sessionId === bRow.id)).toBe(
      true,
    );

    // Signing out ends that device only (a copied cookie of it too); the user's other devices stay.
    const e = await signInAs(device(app.url, "Device-E"), account.email, "device-password-1");
    const copy = new HttpClient(app.url);
    (copy as unknown as { cookies: Map<string, string> }).cookies = new Map(
      (e as unknown as { cookies: Map<string, string> }).cookies,
    );
    await signOut(e);
    expect((await copy.json("/api/me")).status).toBe(401);
    expect((await a.json("/api/me")).status).toBe(200);

    // Signing this device out through the list is signing out.
    const self = await a.json(`/api/me/sessions/${aRow.id}`, { method: "DELETE" });
    expect(self.body).toEqual({ signedOut: true, current: true });
    expect((await a.json("/api/me")).status).toBe(401);
  });

  it("Auth.js's session read answers as signed out once the session version is bumped or the user deactivated", async () => {
    const account = await newAccount("authjs");
    const person = await signedInWithOwnPassword(app.url, account.email, account.otp, "authjs-password-1");
    const other = await signedIn(app.url, account.email, "authjs-password-1");
    expect((await person.json("/api/auth/session")).body.user.email).toBe(account.email);
    // An old session version (what a password change or role removal does), the device session itself untouched.
    await db.user.update({ where: { id: account.id }, data: { sessionVersion: { increment: 1 } } });
    expect((await person.json("/api/me")).status).toBe(401);
    const stale = await person.fetch("/api/auth/session");
    expect(await stale.json()).toBeNull();
    // Not renewed either: no fresh session cookie for a token that no longer counts.
    expect(stale.headers.getSetCookie().filter((c) => /session-token=[^;]/.test(c))).toEqual([]);
    // Auth.js's update (POST, with its CSRF token) reads and renews the session too: the same answer.
    const csrf = await person.json<{ csrfToken: string }>("/api/auth/csrf");
    const form = { "content-type": "application/x-www-form-urlencoded" };
    const body = new URLSearchParams({ csrfToken: csrf.body.csrfToken });
    const update = await person.fetch("/api/auth/session", { method: "POST", headers: form, body });
    expect(update.status).toBe(200);
    expect(update.headers.getSetCookie().filter((c) => /session-token=[^;]/.test(c))).toEqual([]);
    expect(await update.json()).toBeNull();
    // Deactivation: a session made after the bump, then the user deactivated.
    const fresh = await signedIn(app.url, account.email, "authjs-password-1");
    expect((await fresh.json("/api/auth/session")).body.user.email).toBe(account.email);
    expect(
      (await admin.json(`/api/admin/users/${account.id}/active`, { method: "POST", body: { active: false } })).status,
    ).toBe(200);
    expect((await fresh.json("/api/auth/session")).body).toBeNull();
    expect((await other.json("/api/auth/session")).body).toBeNull();
  });

  it("another user's sessions: never listed, and signing one out with a forged or foreign id is a 404 that changes nothing", async () => {
    const victim = await newAccount("victim");
    const v = await signedInWithOwnPassword(app.url, victim.email, victim.otp, "victim-password-1");
    const victimSession = (await v.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions.find(
      (d) => d.current,
    )!.id;
    const member = await signedIn(app.url, "member@example.com");
    const theirs = (await member.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions;
    expect(theirs.map((d) => d.id)).not.toContain(victimSession);
    for (const id of [victimSession, `${victimSession}x`, "nope", "0"]) {
      const res = await member.json(`/api/me/sessions/${encodeURIComponent(id)}`, { method: "DELETE" });
      expect(res.status, id).toBe(404);
      expect(res.body.error.code).toBe("NOT_FOUND");
    }
    for (const id of ["..%2F..%2Fx", "a%20b", "x".repeat(65)]) {
      const res = await member.json(`/api/me/sessions/${id}`, { method: "DELETE" });
      expect(res.status, id).toBeGreaterThanOrEqual(400);
      expect(res.status, id).toBeLessThan(500);
    }
    // An admin has no more power here: the route is about the caller's own sessions only.
    expect((await admin.json(`/api/me/sessions/${victimSession}`, { method: "DELETE" })).status).toBe(404);
    expect((await v.json("/api/me")).status).toBe(200);
    // Signed out: 401; cross-origin: 403, before anything is done.
    expect((await new HttpClient(app.url).json("/api/me/sessions")).status).toBe(401);
    expect((await new HttpClient(app.url).json(`/api/me/sessions/${victimSession}`, { method: "DELETE" })).status).toBe(
      401,
    );
    const cross = await v.json("/api/me/sessions/revoke-others", {
      method: "POST",
      body: {},
      headers: { origin: "https://evil.example" },
    });
    expect(cross.status).toBe(403);
  });

  it("a password change and deactivation end every device (their rows are revoked too)", async () => {
    const account = await newAccount("all");
    const a = await signedInWithOwnPassword(app.url, account.email, account.otp, "all-password-1");
    const b = await signedIn(app.url, account.email, "all-password-1");
    expect(
      (
        await a.json("/api/me/password", {
          method: "POST",
          body: { currentPassword: "all-password-1", newPassword: "all-password-2" },
        })
      ).status,
    ).toBe(200);
    expect((await a.json("/api/me")).status).toBe(401);
    expect((await b.json("/api/me")).status).toBe(401);
    const c = await signedIn(app.url, account.email, "all-password-2");
    expect((await c.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions).toHaveLength(1);
    expect(
      (await admin.json(`/api/admin/users/${account.id}/active`, { method: "POST", body: { active: false } })).status,
    ).toBe(200);
    expect((await c.json("/api/me")).status).toBe(401);
    expect(await db.authSession.count({ where: { userId: account.id, revokedAt: null } })).toBe(0);
  });

  it("lastSeenAt is written at most once a minute per session, not on every request", async () => {
    const account = await newAccount("seen");
    const a = await signedInWithOwnPassword(app.url, account.email, account.otp, "seen-password-1");
    const id = (await a.json<{ sessions: Device[] }>("/api/me/sessions")).body.sessions.find((d) => d.current)!.id;
    const seen = async () => (await db.authSession.findUniqueOrThrow({ where: { id } })).lastSeenAt.getTime();
    const first = await seen();
    for (let i = 0; i < 5; i++) expect((await a.json("/api/me")).status).toBe(200);
    expect(await seen()).toBe(first);
    // Two minutes ago: the next request moves it (not awaited by the request: poll briefly), the following ones do not.
    const old = new Date(Date.now() - 120_000);
    await db.authSession.update({ where: { id }, data: { lastSeenAt: old } });
    await Promise.all(Array.from({ length: 5 }, () => a.json("/api/me")));
    let moved = await seen();
    for (let i = 0; i < 50 && moved === old.getTime(); i++) {
      await new Promise((r) => setTimeout(r, 100));
      moved = await seen();
    }
    expect(moved).toBeGreaterThan(Date.now() - 30_000);
    for (let i = 0; i < 5; i++) await a.json("/api/me");
    await new Promise((r) => setTimeout(r, 300));
    expect(await seen()).toBe(moved);
  });
});
