// The policy editor's API changes (issue 15) over HTTP: deny lists naming nothing are refused unless overridden
// (and the override is audited), per-user grants are shown and taken by e-mail, and one version's document can be
// read for a diff. Attack cases: a member gets 403, bad input gets a 4xx JSON naming the problem.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";

describe.each(appTargets())("policy editor API (%s)", (_kind, app) => {
  let admin: HttpClient;
  let member: HttpClient;
  let memberId: string;

  async function put(document: unknown, extra: Record<string, unknown> = {}) {
    const { version } = (await admin.json("/api/policy")).body as { version: number };
    return admin.json("/api/policy", { method: "PUT", body: { baseVersion: version, document, ...extra } });
  }

  beforeAll(async () => {
    admin = await signedIn(app.url, "admin@example.com");
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  });

  afterAll(async () => {
    expect((await put({}, { comment: "admin-policy-editor test cleanup" })).status).toBe(200);
  });

  it("a deny list naming no tool is refused with 422 naming the list and the entry; nothing is saved", async () => {
    const before = (await admin.json("/api/policy")).body.version;
    const res = await put({ tools: { deny: ["exce", "read"] }, teams: { ops: { deny: ["group:fs"] } } });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    expect(res.body.error.message).toContain("exce");
    expect(res.body.error.details.issues).toEqual([{ path: "tools.deny", message: expect.stringContaining('"exce"') }]);
    expect((await admin.json("/api/policy")).body.version).toBe(before);
  });

  it("an unknown name in an allow list stays a warning: the save goes through", async () => {
    expect((await put({ tools: { allow: ["raed", "read", "current_time"] } })).status).toBe(200);
  });

  it("save anyway (confirmUnknownDenies) saves it once and the audit row records the override", async () => {
    const res = await put({ tools: { deny: ["exce"] } }, { confirmUnknownDenies: true, comment: "typo on purpose" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const audit = await admin.json("/api/audit?action=policy.saved&limit=1");
    expect(audit.body.entries[0]).toMatchObject({
      actorEmail: "admin@example.com",
      details: { version: res.body.version, unknownDenyOverride: [{ path: "tools.deny", entries: ["exce"] }] },
    });
    // The override is per save: the next save of the same document is refused again.
    expect((await put({ tools: { deny: ["exce"] } })).status).toBe(422);
    expect((await put({ tools: { deny: ["exce"] } }, { confirmUnknownDenies: "yes" })).status).toBe(422);
  });

  it("per-user grants are taken by e-mail, stored by id (the engine sees them) and shown by e-mail", async () => {
    const res = await put({ modeGrants: { users: { "Member@Example.com": ["chat_safe", "coding"] } } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const shown = (await admin.json("/api/policy")).body.document.modeGrants.users;
    expect(shown).toEqual({ "member@example.com": ["chat_safe", "coding"] });
    expect(JSON.stringify(shown)).not.toContain(memberId);
    // Stored by id: the member's own context has coding granted.
    const effective = await admin.json("/api/policy/effective", {
      method: "POST",
      body: { context: { roles: ["member"], senderId: memberId } },
    });
    expect(effective.status).toBe(200);
    expect(effective.body.matrix.columns.find((c: { mode: string }) => c.mode === "coding")).toMatchObject({
      granted: true,
    });
    // A draft keyed by e-mail is previewed the same way.
    const draft = await admin.json("/api/policy/effective", {
      method: "POST",
      body: { context: { roles: ["member"], senderId: memberId }, document: { modeGrants: { users: {} } } },
    });
    expect(draft.body.matrix.columns.find((c: { mode: string }) => c.mode === "coding")).toMatchObject({
      granted: false,
    });
  });

  it("a grant to an e-mail no user has is refused with 422 naming it", async () => {
    const res = await put({ modeGrants: { users: { "nobody@example.com": ["coding"] } } });
    expect(res.status).toBe(422);
    expect(res.body.error.message).toContain("nobody@example.com");
    expect(res.body.error.details.issues[0].path).toBe("modeGrants.users.nobody@example.com");
  });

  it("one version's document can be read for a diff (0 is the built-in default); bad or missing versions are 4xx JSON", async () => {
    const saved = await put({ askRules: ["write"] }, { comment: "for the diff" });
    const doc = await admin.json(`/api/policy/versions/${saved.body.version}`);
    expect(doc.status).toBe(200);
    expect(doc.body).toMatchObject({ version: saved.body.version, document: { askRules: ["write"] } });
    const zero = await admin.json("/api/policy/versions/0");
    expect(zero.status).toBe(200);
    expect(zero.body.document.askRules).toEqual([]);
    for (const bad of ["abc", "-1", "1.5", "99999999999"]) {
      const res = await admin.json(`/api/policy/versions/${bad}`);
      expect(res.status, bad).toBe(422);
      expect(res.body.error.code).toBe("VALIDATION_FAILED");
    }
    const missing = await admin.json("/api/policy/versions/99999");
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toContain("99999");
  });

  it("a member gets 403 from every one of these endpoints", async () => {
    expect((await member.json("/api/policy/versions/0")).status).toBe(403);
    expect(
      (
        await member.json("/api/policy", {
          method: "PUT",
          body: { baseVersion: 0, document: {}, confirmUnknownDenies: true },
        })
      ).status,
    ).toBe(403);
    const grant = await member.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: 0, document: { modeGrants: { users: { "member@example.com": ["coding"] } } } },
    });
    expect(grant.status).toBe(403);
  });
});
