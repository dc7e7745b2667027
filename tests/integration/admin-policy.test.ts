// The policy API over HTTP against the running app: versions with optimistic concurrency, validation with paths,
// history, rollback, the effective matrix with provenance, and a saved policy applying to the very next turn.
import type { PolicyDocument } from "@/lib/policy/document";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";
import { readUiStream } from "../support/ui-stream";

type MatrixCell = { status: string; rule?: string; source?: string; chain: Array<{ layer: string; outcome: string }> };
type MatrixBody = {
  matrix: { groups: Array<{ rows: Array<{ name: string; cells: { chat_safe: MatrixCell; coding: MatrixCell } }> }> };
};
/** The matrix row of one tool in a /api/policy/effective answer (fails the test when the tool has no row). */
function find(body: MatrixBody, tool: string) {
  const row = body.matrix.groups.flatMap((g) => g.rows).find((r) => r.name === tool);
  if (!row) throw new Error(`no matrix row for ${tool}`);
  return row;
}

const say = (sessionId: string, text: string) => ({
  sessionId,
  message: { role: "user", parts: [{ type: "text", text }] },
});

describe.each(appTargets())("admin policy API (%s)", (_kind, app) => {
  let admin: HttpClient;
  let member: HttpClient;
  let memberId: string;

  async function current(): Promise<{ version: number; document: PolicyDocument }> {
    const res = await admin.json("/api/policy");
    expect(res.status).toBe(200);
    return res.body;
  }

  async function save(document: unknown, comment?: string) {
    const { version } = await current();
    const res = await admin.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: version, document, ...(comment ? { comment } : {}) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { version: number; changed: string[] };
  }

  async function chat(client: HttpClient, sessionId: string, text: string) {
    const res = await client.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, text)),
    });
    expect(res.status).toBe(200);
    return readUiStream(res);
  }

  beforeAll(async () => {
    admin = await signedIn(app.url, "admin@example.com");
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  });

  afterAll(async () => {
    // Later test files share this app: put the default policy back.
    await save({}, "admin-policy test cleanup");
  });

  it("GET returns the version in force and a complete document", async () => {
    const { version, document } = await current();
    expect(version).toBeGreaterThanOrEqual(0);
    expect(document.system.fs.maxReadBytes).toBe(512 * 1024);
    expect(document.modeGrants.roles.member).toEqual(["chat_safe"]);
  });

  it("a save on a stale base is refused with 409 and a clear message, and nothing is saved", async () => {
    const { version } = await current();
    const first = await save({ tools: { deny: ["memory_get"] } }, "first");
    expect(first.version).toBe(version + 1);
    expect(first.changed).toContain("tools.deny");
    const stale = await admin.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: version, document: { tools: { deny: ["exec"] } } },
    });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("CONFLICT");
    expect(stale.body.error.message).toMatch(
      new RegExp(`version ${version + 1} is newer than your base version ${version}`),
    );
    const after = await current();
    expect(after.version).toBe(version + 1);
    expect(after.document.tools.deny).toEqual(["memory_get"]);
  });

  it("an invalid document gets 422 with the path of every problem", async () => {
    const { version } = await current();
    const res = await admin.json("/api/policy", {
      method: "PUT",
      body: {
        baseVersion: version,
        document: { tools: { deny: "exec" }, system: { fs: { maxReadBytes: -1 } }, nonsense: true },
      },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe("VALIDATION_FAILED");
    const paths = res.body.error.details.issues.map((i: { path: string }) => i.path).sort();
    expect(paths).toEqual(["nonsense", "system.fs.maxReadBytes", "tools.deny"]);
    expect((await current()).version).toBe(version);
  });

  it("a mode override that would loosen a tool is refused with the reason", async () => {
    const { version } = await current();
    const res = await admin.json("/api/policy", {
      method: "PUT",
      body: { baseVersion: version, document: { modeOverrides: { read: ["chat_safe", "coding"] } } },
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.issues).toEqual([
      { path: "modeOverrides.read", message: expect.stringContaining("chat_safe") },
    ]);
  });

  it("history lists who, when, the comment and what changed; rollback restores a version as a new one, audited", async () => {
    const base = await save({ tools: { deny: ["memory_get"] } }, "base for rollback");
    const changed = await save(
      { tools: { deny: ["memory_get", "sessions_list"] }, askRules: ["write"] },
      "widen the deny list",
    );
    const history = await admin.json("/api/policy/versions");
    expect(history.status).toBe(200);
    const top = history.body.versions[0];
    expect(top).toMatchObject({
      version: changed.version,
      comment: "widen the deny list",
      createdBy: { email: "admin@example.com" },
    });
    expect(top.changed).toEqual(["askRules", "tools"]);
    expect(Date.parse(top.createdAt)).not.toBeNaN();

    const rolled = await admin.json("/api/policy/rollback", { method: "POST", body: { version: base.version } });
    expect(rolled.status).toBe(201);
    expect(rolled.body.version).toBe(changed.version + 1);
    const now = await current();
    expect(now.version).toBe(changed.version + 1);
    expect(now.document.tools.deny).toEqual(["memory_get"]);
    expect(now.document.askRules).toEqual([]);

    const audit = await admin.json("/api/audit?action=policy.rolled_back&limit=1");
    expect(audit.body.entries[0]).toMatchObject({
      actorEmail: "admin@example.com",
      details: { version: now.version, restoredVersion: base.version },
    });
    expect(audit.body.entries[0].details.changed).toEqual(expect.arrayContaining(["askRules", "tools.deny"]));
    const missing = await admin.json("/api/policy/rollback", { method: "POST", body: { version: 99_999 } });
    expect(missing.status).toBe(404);
  });

  it("the effective matrix names the layer, rule and source of a deny rule, and marks the cells a draft flips", async () => {
    await save({}, "reset for matrix");
    const context = { roles: ["member", "owner", "admin"], provider: "offline" };
    const saved = await admin.json("/api/policy/effective", { method: "POST", body: { context } });
    expect(saved.status).toBe(200);
    expect(saved.body.draft).toBe(false);
    expect(saved.body.matrix.columns.map((c: { mode: string }) => c.mode)).toEqual(["chat_safe", "coding"]);
    expect(find(saved.body, "current_time").cells.chat_safe.status).toBe("allowed");

    const draft = await admin.json("/api/policy/effective", {
      method: "POST",
      body: { context, document: { tools: { deny: ["current_time"] } } },
    });
    expect(draft.status).toBe(200);
    const cell = find(draft.body, "current_time").cells.chat_safe;
    expect(cell).toMatchObject({ status: "denied", layer: "global", errorCode: "POLICY_DENIED", source: "tools" });
    expect(cell.rule).toContain("current_time");
    expect(cell.chain.find((e) => e.layer === "global")).toMatchObject({ outcome: "removed" });
    expect(draft.body.flips).toEqual(
      expect.arrayContaining([
        { tool: "current_time", mode: "chat_safe", from: "allowed", to: "denied" },
        { tool: "current_time", mode: "coding", from: "allowed", to: "denied" },
      ]),
    );
    expect(draft.body.flips).toHaveLength(2);

    const invalid = await admin.json("/api/policy/effective", {
      method: "POST",
      body: { context, document: { tools: { deny: 5 } } },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.details.issues[0].path).toBe("tools.deny");
  });

  it("Y6 a saved policy applies to the next chat turn: current_time denied globally → data-tool_denied POLICY_DENIED", async () => {
    await save({}, "reset");
    const session = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    const before = await chat(member, session, "/tool current_time {}");
    expect(before.some((c) => c.type === "data-tool_denied")).toBe(false);

    await save({ tools: { deny: ["current_time"] } }, "deny current_time");
    const after = await chat(member, session, "/tool current_time {}");
    const denied = after.find((c) => c.type === "data-tool_denied");
    expect(denied?.data).toMatchObject({ toolName: "current_time", errorCode: "POLICY_DENIED" });
    expect(denied?.data.message).toContain("global");

    const replay = await admin.json("/api/policy/replay", { method: "POST", body: { document: {}, limit: 5 } });
    expect(replay.status).toBe(200);
    // The newest recorded call was denied by the global layer; the empty draft would allow it.
    expect(replay.body.calls[0]).toMatchObject({
      toolName: "current_time",
      recorded: "denied",
      draft: "allowed",
      differs: true,
    });
    expect(replay.body.calls[1]).toMatchObject({
      toolName: "current_time",
      recorded: "allowed",
      draft: "allowed",
      differs: false,
    });
  });

  it("done when: exec denied for the member's team shows in the matrix, is refused naming the team layer, audited, and rollback restores it", async () => {
    const teamId = `ops-${Date.now().toString(36)}`;
    expect((await admin.json("/api/admin/teams", { method: "POST", body: { id: teamId, name: "Ops" } })).status).toBe(
      201,
    );
    expect(
      (
        await admin.json(`/api/admin/teams/${teamId}/members`, {
          method: "POST",
          body: { userId: memberId, action: "add" },
        })
      ).status,
    ).toBe(200);
    const open = await save(
      { modeGrants: { teams: { [teamId]: ["chat_safe", "coding"] } }, exec: { security: "full", ask: "off" } },
      "team may code",
    );
    const denied = await save(
      {
        modeGrants: { teams: { [teamId]: ["chat_safe", "coding"] } },
        exec: { security: "full", ask: "off" },
        teams: { [teamId]: { deny: ["exec"] } },
      },
      "deny exec for the team",
    );

    const context = { roles: ["member"], teamIds: [teamId], senderId: memberId, provider: "offline" };
    const matrix = await admin.json("/api/policy/effective", { method: "POST", body: { context } });
    const exec = find(matrix.body, "exec").cells.coding;
    expect(exec).toMatchObject({ status: "denied", layer: "group" });
    expect(exec.source).toContain(teamId);

    const session = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    expect((await member.json(`/api/sessions/${session}`, { method: "PATCH", body: { mode: "coding" } })).status).toBe(
      200,
    );
    const chunks = await chat(member, session, '/tool exec {"command":"echo hi"}');
    const refusal = chunks.find((c) => c.type === "data-tool_denied");
    expect(refusal?.data).toMatchObject({ toolName: "exec", errorCode: "POLICY_DENIED" });
    expect(refusal?.data.message).toContain("team");

    const audit = await admin.json(`/api/audit?session=${session}&tool=exec&decision=deny`);
    expect(audit.body.entries[0]).toMatchObject({ layer: "group", decision: "deny" });
    const change = await admin.json("/api/audit?action=policy.saved&limit=1");
    expect(change.body.entries[0].details).toMatchObject({ version: denied.version, changed: [`teams.${teamId}`] });

    expect((await admin.json("/api/policy/rollback", { method: "POST", body: { version: open.version } })).status).toBe(
      201,
    );
    const back = await admin.json("/api/policy/effective", { method: "POST", body: { context } });
    expect(find(back.body, "exec").cells.coding.status).toBe("allowed");
    const again = await chat(member, session, '/tool exec {"command":"echo hi"}');
    expect(again.some((c) => c.type === "data-tool_denied")).toBe(false);
    expect(again.some((c) => c.type === "tool-output-available")).toBe(true);
  });
});
