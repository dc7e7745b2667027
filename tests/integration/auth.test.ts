import { describe, expect, it } from "vitest";
import { HttpClient, signedIn, signedInWithOwnPassword } from "../support/http-client";
import { appTargets } from "../support/targets";

describe.each(appTargets())("sign-in and roles (%s)", (_kind, app) => {
  it.each([
    ["admin@example.com", ["member", "owner", "admin"]],
    ["owner@example.com", ["member", "owner"]],
    ["member@example.com", ["member"]],
  ])("%s signs in and carries its roles in the session and in /api/me", async (email, roles) => {
    const client = await signedIn(app.url, email);
    const session = await client.json("/api/auth/session");
    expect(session.body.user.email).toBe(email);
    expect([...session.body.user.roles].sort()).toEqual([...roles].sort());
    const me = await client.json("/api/me");
    expect(me.status).toBe(200);
    expect([...me.body.user.roles].sort()).toEqual([...roles].sort());
  });

  it("a wrong password gives no session", async () => {
    const client = new HttpClient(app.url);
    expect(await client.signIn("member@example.com", "not-the-password")).toBe(false);
    expect((await client.json("/api/me")).status).toBe(401);
  });

  it("signed out: 401 with a JSON body naming the problem", async () => {
    const res = await new HttpClient(app.url).json("/api/me");
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe("UNAUTHENTICATED");
  });

  it("a member gets 403 on an admin API, an admin gets the data", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const denied = await member.json("/api/admin/users");
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe("FORBIDDEN");
    const admin = await signedIn(app.url, "admin@example.com");
    const ok = await admin.json("/api/admin/users");
    expect(ok.status).toBe(200);
    expect(ok.body.users.map((u: { email: string }) => u.email)).toContain("member@example.com");
  });

  it("a forged session cookie is not accepted", async () => {
    const client = new HttpClient(app.url);
    const res = await client.json("/api/me", { headers: { cookie: "authjs.session-token=forged.jwt.value" } });
    expect(res.status).toBe(401);
  });

  it("a page asked for with a session that has ended sends to sign-in saying so; a stranger is only sent to sign in", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const made = await admin.json("/api/admin/users", {
      method: "POST",
      body: { email: `ended-${Date.now().toString(36)}@example.com`, roles: ["member"] },
    });
    expect(made.status).toBe(201);
    const person = await signedInWithOwnPassword(app.url, made.body.user.email, made.body.temporaryPassword);
    expect((await person.fetch("/chat")).status).toBe(200);
    expect(
      (await admin.json(`/api/admin/users/${made.body.user.id}/active`, { method: "POST", body: { active: false } }))
        .status,
    ).toBe(200);
    // Whichever request of an open tab learns it first (a refresh, a link, a reload), the sign-in page says why.
    const ended = await person.fetch("/chat/some-chat");
    expect([303, 307, 308]).toContain(ended.status);
    expect(new URL(ended.headers.get("location")!, app.url).search).toBe("?next=%2Fchat%2Fsome-chat&ended=1");
    const stranger = await new HttpClient(app.url).fetch("/chat/some-chat");
    expect(new URL(stranger.headers.get("location")!, app.url).search).toBe("?next=%2Fchat%2Fsome-chat");
    const forged = await new HttpClient(app.url).fetch("/chat", {
      headers: { cookie: "authjs.session-token=forged.jwt.value" },
    });
    expect(new URL(forged.headers.get("location")!, app.url).search).toBe("");
  });

  it("a member is redirected away from admin and approvals pages", async () => {
    const member = await signedIn(app.url, "member@example.com");
    for (const path of ["/admin", "/admin/users", "/approvals"]) {
      const res = await member.fetch(path);
      expect([303, 307, 308]).toContain(res.status);
      // With the reason, which the chat page shows (issue 15: no silent redirect).
      expect(res.headers.get("location")).toMatch(
        path.startsWith("/admin") ? /\/chat\?notice=admin-only$/ : /\/chat\?notice=owner-only$/,
      );
    }
  });
});
