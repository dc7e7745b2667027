// Issue 28 over HTTP against the built app: the admin policy API names how member budgets are enforced, and the
// restore endpoint answers only for the caller's own trash, with JSON errors for bad or unknown ids. A member
// restores over HTTP what a sandbox-mode command deleted.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";
import { readUiStream } from "../support/ui-stream";
import { createDb, type Db } from "@/lib/db/client";
import { probeSandbox } from "@/lib/tools/sandbox";

const probe = await probeSandbox();

describe.each(appTargets())("exec workspace over HTTP (%s)", (_kind, app) => {
  let db: Db;
  let admin: HttpClient;
  let member: HttpClient;
  let memberId: string;

  async function setPolicy(document: unknown) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    await db.policyVersion.create({
      data: { version: (last?.version ?? 0) + 1, document: document as never, comment: "exec workspace http test" },
    });
  }

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    admin = await signedIn(app.url, "admin@example.com");
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  });

  afterAll(async () => {
    await setPolicy({}); // later test files share this app: back to the version-1 (allowlist) meaning
    await db.$disconnect();
  });

  it("GET /api/policy names the member-limit mechanism", async () => {
    const res = await admin.json<{ execLimits: { kind: string; detail: string } }>("/api/policy");
    expect(res.status).toBe(200);
    expect(["cgroup-v1", "cgroup-v2", "rlimits"]).toContain(res.body.execLimits.kind);
    expect(res.body.execLimits.detail.length).toBeGreaterThan(10);
  });

  it("the restore endpoint: 401 signed out, 422 for a malformed id, 404 for an id that is not the caller's", async () => {
    const anonymous = await fetch(`${app.url}/api/me/workspace/restore`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(anonymous.status).toBe(401);
    const bad = await member.json("/api/me/workspace/restore", { method: "POST", body: { restoreId: "../../etc" } });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).not.toMatch(/\/tmp|\/var|at .*\.ts/);
    const unknown = await member.json("/api/me/workspace/restore", { method: "POST", body: { restoreId: "nope-123" } });
    expect(unknown.status).toBe(404);
  });

  it.skipIf(!probe.ok)(
    "a member restores over HTTP what a sandbox-mode command deleted; another member cannot",
    async () => {
      await setPolicy({ version: 2, modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } } });
      const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id;
      expect(
        (await member.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
      ).toBe(200);
      const chat = async (command: string) => {
        const res = await member.fetch("/api/chat", {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            sessionId,
            message: { role: "user", parts: [{ type: "text", text: `/tool exec ${JSON.stringify({ command })}` }] },
          }),
        });
        expect(res.status).toBe(200);
        await readUiStream(res);
        const { body } = await member.json<{
          transcript: Array<{
            role: string;
            toolName: string | null;
            parts: { output?: { changes?: { restoreId: string | null } } } | null;
          }>;
        }>(`/api/sessions/${sessionId}`);
        return body.transcript.filter((m) => m.role === "tool" && m.toolName === "exec").at(-1)!.parts!.output!;
      };
      await chat("mkdir -p keep && echo precious > keep/data.txt");
      const removed = await chat("rm -rf keep");
      const restoreId = removed.changes?.restoreId;
      expect(restoreId).toBeTruthy();
      const owner = await signedIn(app.url, "owner@example.com");
      expect((await owner.json("/api/me/workspace/restore", { method: "POST", body: { restoreId } })).status).toBe(404);
      const listed = await member.json<{ restorable: Array<{ restoreId: string }> }>("/api/me/workspace/restore");
      expect(listed.body.restorable.map((r) => r.restoreId)).toContain(restoreId);
      const restored = await member.json<{ restored: string[] }>("/api/me/workspace/restore", {
        method: "POST",
        body: { restoreId },
      });
      expect(restored.status).toBe(200);
      expect(restored.body.restored).toEqual(["keep"]);
      const after = await chat("cat keep/data.txt");
      expect((after as { stdout?: string }).stdout).toBe("precious\n");
    },
  );
});
