// Every admin endpoint refuses members (403) and signed-out callers (401); role and team changes apply to the
// target's next request without signing out.
import { describe, expect, it } from "vitest";
import { HttpClient, signedIn } from "../support/http-client";
import { appTargets } from "../support/targets";

const ENDPOINTS: Array<[string, string, unknown?]> = [
  ["GET", "/api/policy"],
  ["PUT", "/api/policy", { baseVersion: 0, document: {} }],
  ["GET", "/api/policy/versions"],
  ["POST", "/api/policy/rollback", { version: 1 }],
  ["POST", "/api/policy/effective", { context: {} }],
  ["POST", "/api/policy/replay", { document: {} }],
  ["GET", "/api/policy/tools"],
  ["GET", "/api/audit"],
  ["POST", "/api/audit/verify"],
  ["GET", "/api/admin/users"],
  ["GET", "/api/admin/teams"],
  ["POST", "/api/admin/teams", { id: "x", name: "X" }],
  ["DELETE", "/api/admin/teams/x"],
  ["POST", "/api/admin/teams/x/members", { userId: "u", action: "add" }],
  ["POST", "/api/admin/users/u/roles", { role: "admin", action: "add" }],
  ["POST", "/api/policy/import", { format: "openclaw", text: "{}" }],
  ["GET", "/api/mcp/servers"],
  ["POST", "/api/mcp/servers/x/reconnect"],
];

describe.each(appTargets())("admin access (%s)", (_kind, app) => {
  it.each(ENDPOINTS)("%s %s: 403 for a member, 401 signed out", async (method, path, body) => {
    const member = await signedIn(app.url, "member@example.com");
    const res = await member.json(path, { method, ...(body !== undefined ? { body } : {}) });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe("FORBIDDEN");
    const anonymous = await new HttpClient(app.url).json(path, { method, ...(body !== undefined ? { body } : {}) });
    expect(anonymous.status).toBe(401);
  });

  it("a granted role applies to the member's next request; a removed one also ends the member's sessions (issue 12)", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const member = await signedIn(app.url, "member@example.com");
    const memberId = (await member.json("/api/me")).body.user.id;
    expect((await member.json("/api/policy")).status).toBe(403);
    const granted = await admin.json(`/api/admin/users/${memberId}/roles`, {
      method: "POST",
      body: { role: "admin", action: "add" },
    });
    expect(granted.status).toBe(200);
    expect(granted.body.user.roles).toContain("admin");
    expect((await member.json("/api/policy")).status).toBe(200);
    const revoked = await admin.json(`/api/admin/users/${memberId}/roles`, {
      method: "POST",
      body: { role: "admin", action: "remove" },
    });
    expect(revoked.status).toBe(200);
    expect((await member.json("/api/policy")).status).toBe(401);
    expect((await (await signedIn(app.url, "member@example.com")).json("/api/policy")).status).toBe(403);
    const audit = await admin.json(`/api/audit?action=user.role_removed&limit=1`);
    expect(audit.body.entries[0].details).toMatchObject({ userId: memberId, role: "admin" });
  });

  it("an admin cannot remove their own admin role", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const adminId = (await admin.json("/api/me")).body.user.id;
    const res = await admin.json(`/api/admin/users/${adminId}/roles`, {
      method: "POST",
      body: { role: "admin", action: "remove" },
    });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/own admin role/);
    expect((await admin.json("/api/me")).body.user.roles).toContain("admin");
  });

  it("teams: create, duplicate refused, add and remove a member (visible in /api/me at once), delete", async () => {
    const admin = await signedIn(app.url, "admin@example.com");
    const member = await signedIn(app.url, "member@example.com");
    const memberId = (await member.json("/api/me")).body.user.id;
    const id = `qa-${Date.now().toString(36)}`;
    expect((await admin.json("/api/admin/teams", { method: "POST", body: { id, name: "QA" } })).status).toBe(201);
    expect((await admin.json("/api/admin/teams", { method: "POST", body: { id, name: "QA" } })).status).toBe(409);
    expect((await admin.json("/api/admin/teams", { method: "POST", body: { id: "Bad Id", name: "x" } })).status).toBe(
      422,
    );
    expect(
      (
        await admin.json(`/api/admin/teams/${id}/members`, {
          method: "POST",
          body: { userId: memberId, action: "add" },
        })
      ).status,
    ).toBe(200);
    expect((await member.json("/api/me")).body.user.teamIds).toContain(id);
    const listed = await admin.json("/api/admin/users");
    expect(listed.body.teams.find((t: { id: string }) => t.id === id).memberIds).toEqual([memberId]);
    expect(
      (
        await admin.json(`/api/admin/teams/${id}/members`, {
          method: "POST",
          body: { userId: memberId, action: "remove" },
        })
      ).status,
    ).toBe(200);
    expect((await member.json("/api/me")).body.user.teamIds).not.toContain(id);
    expect((await admin.json(`/api/admin/teams/${id}`, { method: "DELETE" })).status).toBe(200);
    expect((await admin.json(`/api/admin/teams/${id}`, { method: "DELETE" })).status).toBe(404);
  });
});
