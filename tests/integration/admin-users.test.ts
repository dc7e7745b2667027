// Issue 15: account administration over real HTTP. Admins create users and reset passwords (a one-time password
// shown once), deactivate and reactivate them (sessions end at once, sign-in refused); everything is audited and
// admin-only. Account changes are pushed to the affected person's stream (/api/me/events).
import { describe, expect, it } from "vitest";
import { HttpClient, signedIn, signedInWithOwnPassword } from "../support/http-client";
import { openSse } from "../support/approvals-helpers";
import { appTargets } from "../support/targets";

const fresh = (tag: string) =>
  `u15-${tag}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;

async function create(admin: HttpClient, email: string, roles: string[] = ["member"]) {
  const res = await admin.json("/api/admin/users", { method: "POST", body: { email, roles } });
  expect(res.status).toBe(201);
  expect(typeof res.body.temporaryPassword).toBe("string");
  return { id: res.body.user.id as string, password: res.body.temporaryPassword as string, body: res.body };
}

/** A new account whose holder has replaced the one-time password (issue 32: nothing else works until then). */
async function createSignedIn(admin: HttpClient, appUrl: string, email: string, roles: string[] = ["member"]) {
  const made = await create(admin, email, roles);
  const own = `own-${made.password.slice(0, 12)}`;
  return { ...made, password: own, client: await signedInWithOwnPassword(appUrl, email, made.password, own) };
}

describe.each(appTargets())("users admin (%s)", (_kind, app) => {
  it("members and owners get 403 on every account endpoint, signed-out callers 401", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const owner = await signedIn(app.url, "owner@example.com");
    const targetId = (await member.json("/api/me")).body.user.id;
    const calls: Array<[string, unknown]> = [
      ["/api/admin/users", { email: fresh("x"), roles: ["member"] }],
      [`/api/admin/users/${targetId}/password`, {}],
      [`/api/admin/users/${targetId}/active`, { active: false }],
      [`/api/admin/users/${targetId}/roles`, { role: "admin", action: "add" }],
      [`/api/admin/users/${targetId}/revoke-all`, {}],
    ];
    for (const [path, body] of calls) {
      for (const client of [member, owner]) {
        const res = await client.json(path, { method: "POST", body });
        expect(res.status, path).toBe(403);
        expect(res.body.error.code).toBe("FORBIDDEN");
      }
      expect((await new HttpClient(app.url).json(path, { method: "POST", body })).status, path).toBe(401);
    }
    // Still a member, still signed in: nothing above changed anything.
    expect((await member.json("/api/me")).body.user.roles).toEqual(["member"]);
  });

  it("create: a one-time password that signs in, member always included, duplicate e-mail 409, bad input 422, audited without the password", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const email = fresh("new");
    const made = await create(admin, email, ["owner"]);
    expect(made.body.user).toMatchObject({ email, roles: ["member", "owner"], active: true });
    expect(made.password.length).toBeGreaterThanOrEqual(20);
    const user = await signedIn(app.url, email, made.password);
    // Signed in, but nothing works until the one-time password is replaced (issue 32).
    expect((await user.json("/api/me")).body.error.code).toBe("PASSWORD_CHANGE_REQUIRED");
    const own = await signedInWithOwnPassword(app.url, email, made.password, "a-password-of-my-own");
    expect((await own.json("/api/me")).body.user.roles).toEqual(["member", "owner"]);
    // The same address in other letter case is the same account.
    const dup = await admin.json("/api/admin/users", {
      method: "POST",
      body: { email: email.toUpperCase(), roles: ["member"] },
    });
    expect(dup.status).toBe(409);
    expect(dup.body.error.message).toMatch(/already a user/);
    for (const body of [
      { email: "not-an-address", roles: ["member"] },
      { email: fresh("b"), roles: [] },
      { email: fresh("c"), roles: ["root"] },
      { email: fresh("d"), roles: ["member"], password: "mine" },
      null,
    ]) {
      const bad = await admin.json("/api/admin/users", { method: "POST", body: body ?? "" });
      expect(bad.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(bad.status).toBeLessThan(500);
      expect(bad.body.error.code).toMatch(/VALIDATION_FAILED|INVALID_JSON|BAD_REQUEST/);
    }
    const listed = (await admin.json("/api/admin/users")).body.users.find((u: { email: string }) => u.email === email);
    expect(listed).toMatchObject({ id: made.id, active: true });
    const audit = await admin.json(`/api/audit?action=user.created&limit=20`);
    const row = audit.body.entries.find((e: { details: { userId?: string } }) => e.details.userId === made.id);
    expect(row.details).toMatchObject({ email, roles: ["member", "owner"] });
    expect(JSON.stringify(audit.body)).not.toContain(made.password);
  });

  it("reset password: the old password and the old session stop working, the new one signs in; not for yourself or nobody", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const adminId = (await admin.json("/api/me")).body.user.id;
    const email = fresh("reset");
    const made = await create(admin, email);
    const before = await signedIn(app.url, email, made.password);
    const reset = await admin.json(`/api/admin/users/${made.id}/password`, { method: "POST", body: {} });
    expect(reset.status).toBe(200);
    expect(reset.body.temporaryPassword).not.toBe(made.password);
    expect((await before.json("/api/me")).status).toBe(401);
    expect(await new HttpClient(app.url).signIn(email, made.password)).toBe(false);
    expect(await new HttpClient(app.url).signIn(email, reset.body.temporaryPassword)).toBe(true);
    expect((await admin.json(`/api/admin/users/${adminId}/password`, { method: "POST", body: {} })).status).toBe(409);
    expect(
      (await admin.json(`/api/admin/users/nobody-${Date.now()}/password`, { method: "POST", body: {} })).status,
    ).toBe(404);
    expect(
      (await admin.json(`/api/admin/users/${made.id}/password`, { method: "POST", body: { password: "chosen" } }))
        .status,
    ).toBe(422);
    const audit = await admin.json(`/api/audit?action=user.password_reset&limit=20`);
    expect(audit.body.entries.some((e: { details: { userId?: string } }) => e.details.userId === made.id)).toBe(true);
    expect(JSON.stringify(audit.body)).not.toContain(reset.body.temporaryPassword);
  });

  it("deactivate: the user's stream closes and their session ends at once, sign-in is refused; reactivate lets them in; never yourself", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const adminId = (await admin.json("/api/me")).body.user.id;
    const email = fresh("off");
    const made = await createSignedIn(admin, app.url, email);
    const user = made.client;
    const stream = openSse(user, "/api/me/events");
    await stream.ready;
    expect(
      (await admin.json(`/api/admin/users/${made.id}/active`, { method: "POST", body: { active: false } })).status,
    ).toBe(200);
    // The server ends the stream by itself (no waiting for the next periodic check).
    const ended = await Promise.race([
      stream.ended.then(() => "ended"),
      new Promise((r) => setTimeout(() => r("still open"), 4_000)),
    ]);
    expect(ended).toBe("ended");
    expect((await user.json("/api/me")).status).toBe(401);
    expect(await new HttpClient(app.url).signIn(email, made.password)).toBe(false);
    const listed = (await admin.json("/api/admin/users")).body.users.find((u: { id: string }) => u.id === made.id);
    expect(listed.active).toBe(false);
    expect(
      (await admin.json(`/api/admin/users/${made.id}/active`, { method: "POST", body: { active: true } })).status,
    ).toBe(200);
    expect(await new HttpClient(app.url).signIn(email, made.password)).toBe(true);
    const self = await admin.json(`/api/admin/users/${adminId}/active`, { method: "POST", body: { active: false } });
    expect(self.status).toBe(409);
    expect((await admin.json("/api/me")).status).toBe(200);
    const audit = await admin.json(`/api/audit?action=user.deactivated&limit=20`);
    expect(audit.body.entries.some((e: { details: { userId?: string } }) => e.details.userId === made.id)).toBe(true);
  });

  it("a granted role and a team membership are pushed to the user's open stream; other users' streams do not get them", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const [emailA, emailB] = [fresh("push-a"), fresh("push-b")];
    const a = await createSignedIn(admin, app.url, emailA);
    const b = await createSignedIn(admin, app.url, emailB);
    const streamA = openSse(a.client, "/api/me/events");
    const streamB = openSse(b.client, "/api/me/events");
    await Promise.all([streamA.ready, streamB.ready]);
    expect(
      (await admin.json(`/api/admin/users/${a.id}/roles`, { method: "POST", body: { role: "owner", action: "add" } }))
        .status,
    ).toBe(200);
    const event = await streamA.waitFor((e) => e.event === "account.changed");
    expect(event.data.payload).toEqual({ userId: a.id, change: "roles" });
    const team = `t15-${Date.now().toString(36)}`;
    expect((await admin.json("/api/admin/teams", { method: "POST", body: { id: team, name: "Push" } })).status).toBe(
      201,
    );
    expect(
      (await admin.json(`/api/admin/teams/${team}/members`, { method: "POST", body: { userId: a.id, action: "add" } }))
        .status,
    ).toBe(200);
    await streamA.waitFor((e) => e.event === "account.changed" && e.data.payload.change === "teams");
    // B heard nothing about A.
    await new Promise((r) => setTimeout(r, 500));
    expect(streamB.events.filter((e) => e.data?.payload?.userId === a.id)).toEqual([]);
    await Promise.all([streamA.close(), streamB.close()]);
    await admin.json(`/api/admin/teams/${team}`, { method: "DELETE" });
  });

  it("an owner's tab stream carries the inbox only while the owner role holds: removing it ends the stream, and the reconnect has no inbox", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const member = await signedIn(app.url, "member@example.com");
    const email = fresh("tab-owner");
    const o = await createSignedIn(admin, app.url, email, ["member", "owner"]);
    const client = o.client;
    const tab = openSse(client, "/api/me/events");
    await tab.ready;
    const ask = async (callId: string) => {
      const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id;
      const res = await member.json("/api/approvals", {
        method: "POST",
        body: { sessionId, toolName: "exec", callId, args: { command: "rm -rf x" } },
      });
      expect(res.status).toBe(202);
      return res.body.id as string;
    };
    const first = await ask(`tab-owner-1-${Date.now()}`);
    await tab.waitFor((e) => e.event === "approval.requested" && e.data.payload.id === first);
    expect(
      (
        await admin.json(`/api/admin/users/${o.id}/roles`, {
          method: "POST",
          body: { role: "owner", action: "remove" },
        })
      ).status,
    ).toBe(200);
    // The role change revokes the session, so the server ends the stream within one re-check.
    await Promise.race([
      tab.ended,
      new Promise((_, reject) =>
        setTimeout(() => reject(new Error("owner stream still open 10 s after the role went")), 10_000),
      ),
    ]);
    const again = openSse(await signedIn(app.url, email, o.password), "/api/me/events");
    await again.ready;
    const second = await ask(`tab-owner-2-${Date.now()}`);
    await new Promise((r) => setTimeout(r, 800));
    expect(again.events.filter((e) => e.event.startsWith("approval.")).map((e) => e.data.payload.id)).not.toContain(
      second,
    );
    await again.close();
  });
});
