// Issue 15, sessions: rename, soft delete and restore over real HTTP on every app target. Only the owner reaches
// their chats (another member's id answers 404, exactly like a missing one), bad input is a 4xx JSON naming the
// problem, every change is audited, a deleted chat is gone from the list and the API until restored, and a mode
// switch leaves its marker line in the stored transcript.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, signedIn } from "../support/http-client";
import { openSse, say } from "../support/approvals-helpers";
import { appTargets } from "../support/targets";
import { createDb, type Db } from "@/lib/db/client";

describe.each(appTargets())("session management API (%s)", (_kind, app) => {
  let db: Db;
  let member: HttpClient;
  let owner: HttpClient;
  let admin: HttpClient;

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    admin = await signedIn(app.url, "admin@example.com");
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  async function newSession(client: HttpClient, title = "before") {
    const res = await client.json("/api/sessions", { method: "POST", body: { title } });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }
  const audits = (sessionId: string, action: string) => db.auditLog.findMany({ where: { sessionId, action } });

  it("renames the owner's chat, audited with the old and new title", async () => {
    const id = await newSession(member);
    const res = await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { title: "  Trip planning  " } });
    expect(res).toEqual({ status: 200, body: { id, title: "Trip planning" } });
    expect((await member.json(`/api/sessions/${id}`)).body.title).toBe("Trip planning");
    const rows = await audits(id, "session.renamed");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.details).toEqual({ from: "before", to: "Trip planning" });
  });

  it("refuses bad titles and bodies with a 4xx JSON naming the problem, and changes nothing", async () => {
    const id = await newSession(member, "kept");
    const cases: Array<[unknown, number, RegExp]> = [
      [{ title: "" }, 422, /title is empty/],
      [{ title: "x".repeat(201) }, 422, /longer than 200/],
      [{ title: "two\nlines" }, 422, /one line/],
      [{ title: "a", mode: "coding" }, 422, /exactly one of mode or title/],
      [{}, 422, /exactly one of mode or title/],
      [{ title: 5 }, 422, /title/],
      [{ title: "a", owner: "someone" }, 422, /owner|unrecognized/i],
    ];
    for (const [body, status, message] of cases) {
      const res = await member.json(`/api/sessions/${id}`, { method: "PATCH", body });
      expect({ body, status: res.status }).toEqual({ body, status });
      expect(res.body.error.message).toMatch(message);
    }
    const notJson = await member.fetch(`/api/sessions/${id}`, {
      method: "PATCH",
      body: "title=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(notJson.status).toBe(415);
    const broken = await member.json(`/api/sessions/${id}`, { method: "PATCH", body: "{not json" });
    expect(broken.status).toBe(400);
    const badId = await member.json(`/api/sessions/${encodeURIComponent("../etc/passwd")}`, { method: "DELETE" });
    expect([400, 404, 422]).toContain(badId.status);
    expect((await member.json(`/api/sessions/${id}`)).body.title).toBe("kept");
  });

  it("another member's chat answers 404 to rename, delete and restore, and stays untouched", async () => {
    const theirs = await newSession(owner, "owner's chat");
    const rename = await member.json(`/api/sessions/${theirs}`, { method: "PATCH", body: { title: "mine now" } });
    const remove = await member.json(`/api/sessions/${theirs}`, { method: "DELETE" });
    const restore = await member.json(`/api/sessions/${theirs}/restore`, { method: "POST" });
    expect([rename.status, remove.status, restore.status]).toEqual([404, 404, 404]);
    for (const res of [rename, remove, restore]) expect(res.body.error.code).toBe("NOT_FOUND");
    // Deleted by its owner, it is still not the member's to restore.
    expect((await owner.json(`/api/sessions/${theirs}`, { method: "DELETE" })).status).toBe(200);
    expect((await member.json(`/api/sessions/${theirs}/restore`, { method: "POST" })).status).toBe(404);
    const row = await db.chatSession.findUnique({ where: { id: theirs } });
    expect(row!.title).toBe("owner's chat");
    expect(row!.deletedAt).not.toBeNull();
    expect((await owner.json(`/api/sessions/${theirs}/restore`, { method: "POST" })).status).toBe(200);
  });

  it("a deleted chat leaves the list and answers 404 until restored; both are audited", async () => {
    const id = await newSession(member, "to delete");
    expect((await member.json(`/api/sessions/${id}`, { method: "DELETE" })).body).toEqual({ id, deleted: true });
    expect((await member.json("/api/sessions")).body.sessions.map((s: { id: string }) => s.id)).not.toContain(id);
    expect((await member.json(`/api/sessions/${id}`)).status).toBe(404);
    expect((await member.json(`/api/sessions/${id}`, { method: "DELETE" })).status).toBe(404);
    const chat = await member.json("/api/chat", {
      method: "POST",
      body: { sessionId: id, message: { role: "user", parts: [{ type: "text", text: "hi" }] } },
    });
    expect(chat.status).toBe(404);
    // The rows stay (the audit chain refers to them).
    expect(await db.chatSession.count({ where: { id } })).toBe(1);

    expect((await member.json(`/api/sessions/${id}/restore`, { method: "POST" })).body).toEqual({ id, deleted: false });
    expect((await member.json(`/api/sessions/${id}`)).body.title).toBe("to delete");
    expect((await member.json("/api/sessions")).body.sessions.map((s: { id: string }) => s.id)).toContain(id);
    expect((await member.json(`/api/sessions/${id}/restore`, { method: "POST" })).status).toBe(404);
    expect(await audits(id, "session.deleted")).toHaveLength(1);
    expect(await audits(id, "session.restored")).toHaveLength(1);
  });

  it("a mode switch stores a marker line in the transcript that the model never reads", async () => {
    const id = await newSession(admin, "switching");
    expect((await admin.json(`/api/sessions/${id}`, { method: "PATCH", body: { mode: "coding" } })).status).toBe(200);
    const session = (await admin.json(`/api/sessions/${id}`)).body;
    const marker = session.transcript.find((m: { role: string }) => m.role === "system");
    expect(marker).toMatchObject({
      role: "system",
      content: "Mode switched from chat_safe to coding",
      parts: { kind: "mode_changed", from: "chat_safe", to: "coding" },
    });
    expect(session.uiMessages.at(-1)).toMatchObject({
      role: "system",
      metadata: { kind: "mode_changed", to: "coding" },
    });
    // A refused switch changes nothing and leaves no marker.
    const memberSession = await newSession(member, "no coding");
    expect(
      (await member.json(`/api/sessions/${memberSession}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(403);
    expect((await member.json(`/api/sessions/${memberSession}`)).body.transcript).toEqual([]);
  });
  it("a tab's one stream (/api/me/events?session=) carries that chat's events, the owner's inbox only for owners, and nobody else's chat", async () => {
    const id = await newSession(member);
    const tab = openSse(member, `/api/me/events?session=${id}`);
    const ownerTab = openSse(owner, "/api/me/events");
    await Promise.all([tab.ready, ownerTab.ready]);
    try {
      const change = (e: { event: string; data: unknown }) =>
        (e.data as { payload?: { change?: string } }).payload?.change;
      const sent = await member.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(say(id, "what time is it?")),
      });
      expect(sent.status).toBe(200);
      await sent.text();
      await tab.waitFor((e) => e.event === "session.updated" && change(e) === "message");
      await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { title: "Other tab" } });
      await tab.waitFor((e) => e.event === "session.updated" && change(e) === "title");
      // An approval request of the member reaches the owner's tab, not the member's other chats or the owner's chat events.
      const other = await newSession(member);
      const asked = await member.json("/api/approvals", {
        method: "POST",
        body: { sessionId: other, toolName: "exec", callId: "tab-stream", args: { command: "rm -rf x" } },
      });
      expect(asked.status).toBe(202);
      await ownerTab.waitFor(
        (e) => e.event === "approval.requested" && (e.data as { payload: { id: string } }).payload.id === asked.body.id,
      );
      expect(
        (await owner.json(`/api/approvals/${asked.body.id}/decision`, { method: "POST", body: { decision: "deny" } }))
          .status,
      ).toBe(200);
      expect(
        tab.events.some((e) => e.event.startsWith("approval.") && (e.data as { sessionId?: string }).sessionId !== id),
      ).toBe(false);
      expect(ownerTab.events.some((e) => e.event === "session.updated")).toBe(false);
      // Another person's chat cannot be added to a stream; a malformed id is refused.
      expect((await owner.fetch(`/api/me/events?session=${id}`)).status).toBe(404);
      expect(
        (await member.fetch(`/api/me/events?session=${encodeURIComponent("../x")}`)).status,
      ).toBeGreaterThanOrEqual(400);
      expect((await new HttpClient(app.url).fetch("/api/me/events")).status).toBe(401);
    } finally {
      await Promise.all([tab.close(), ownerTab.close()]);
    }
  });
});
