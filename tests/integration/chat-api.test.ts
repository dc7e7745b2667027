// The chat JSON API against the running app, on every app target: a denial as the browser sees it (rows A7,
// A8, C4 of docs/requirements.md), mode grants and switches, the transcript surviving a reload and a restart, and bad input.
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startApp } from "../support/app-server";
import { HttpClient, signedIn } from "../support/http-client";
import { appTargets } from "../support/targets";
import { readUiStream } from "../support/ui-stream";
import { createDb, type Db } from "@/lib/db/client";

// Other work in the same tree may be rebuilding .next; wait for a finished build before starting a second app.
async function waitForBuild(timeoutMs = 150_000) {
  const deadline = Date.now() + timeoutMs;
  while (!fs.existsSync(path.join(ROOT, ".next/BUILD_ID")) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 1000));
}

const say = (sessionId: string, text: string) => ({
  sessionId,
  message: { role: "user", parts: [{ type: "text", text }] },
});

describe.each(appTargets())("chat API (%s)", (_kind, app) => {
  let db: Db;
  let member: HttpClient;
  let owner: HttpClient;
  let memberId: string;

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  });

  afterAll(async () => {
    // Later test files share this app: put the default policy back.
    await setPolicy({});
    await db.$disconnect();
  });

  async function setPolicy(document: unknown) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    await db.policyVersion.create({
      data: { version: (last?.version ?? 0) + 1, document: document as never, comment: "chat-api test" },
    });
  }

  async function newSession(client: HttpClient): Promise<string> {
    const res = await client.json("/api/sessions", { method: "POST", body: {} });
    expect(res.status).toBe(201);
    expect(res.body.mode).toBe("chat_safe");
    return res.body.id;
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

  it("A7/A8/C4 a member's /tool read in chat_safe streams a distinct data-tool_denied part, then text", async () => {
    const id = await newSession(member);
    const chunks = await chat(member, id, '/tool read {"path":"README.md"}');
    const types = chunks.map((c) => c.type);
    const denied = chunks.filter((c) => c.type === "data-tool_denied");
    expect(denied).toHaveLength(1);
    expect(denied[0]!.data).toEqual({
      callId: denied[0]!.id,
      toolName: "read",
      mode: "chat_safe",
      errorCode: "MODE_DENIED",
      message: expect.any(String),
      nextAction: expect.any(String),
    });
    // C4: the denial has its own type, apart from tool input, output, text and error chunks.
    expect(types).not.toContain("tool-output-available");
    expect(types).not.toContain("error");
    expect(types).toEqual(expect.arrayContaining(["data-tool_denied", "text-delta", "finish"]));
    // A refused call is never announced as a running tool (its card would spin forever in the chat).
    expect(chunks.filter((c) => c.toolCallId === denied[0]!.id)).toEqual([]);
    expect(chunks.filter((c) => c.type !== "data-tool_denied").some((c) => c.data?.errorCode !== undefined)).toBe(
      false,
    );
    expect(types.slice(types.indexOf("data-tool_denied"))).toContain("text-delta");
    expect(types.at(-1)).toBe("finish");
  });

  it("T2 'what time is it' runs current_time", async () => {
    const id = await newSession(member);
    const chunks = await chat(member, id, "what time is it");
    const input = chunks.find((c) => c.type === "tool-input-available");
    expect(input).toMatchObject({ toolName: "current_time" });
    const output = chunks.find((c) => c.type === "tool-output-available" && c.toolCallId === input!.toolCallId);
    expect(output?.output.utc).toMatch(/^\d{4}-\d{2}-\d{2}T/);
  });

  it("a member's switch to coding is 403 before a grant; after a grant it works, and read sees what write wrote", async () => {
    const id = await newSession(member);
    const refused = await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { mode: "coding" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("FORBIDDEN");
    expect((await member.json(`/api/sessions/${id}`)).body.mode).toBe("chat_safe");

    await setPolicy({ modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } } });
    try {
      const switched = await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { mode: "coding" } });
      expect(switched).toEqual({ status: 200, body: { id, mode: "coding" } });
      const stamp = `hello ${Date.now()}`;
      const wrote = await chat(member, id, `/tool write {"path":"notes.md","content":"${stamp}"}`);
      expect(wrote.find((c) => c.type === "tool-output-available")).toBeDefined();
      const read = await chat(member, id, "read notes.md");
      const output = read.find((c) => c.type === "tool-output-available");
      expect(JSON.stringify(output?.output)).toContain(stamp);
      const audit = await db.auditLog.findFirst({ where: { sessionId: id, action: "session.mode_changed" } });
      expect(audit).toMatchObject({ actorId: memberId, decision: "allow" });
    } finally {
      await setPolicy({});
    }
    // Without the grant the stored coding is read fail-closed as chat_safe again.
    expect((await member.json(`/api/sessions/${id}`)).body).toMatchObject({ mode: "chat_safe", storedMode: "coding" });
  });

  it("the transcript survives a reload and a restart of the app", async () => {
    const id = await newSession(member);
    await chat(member, id, '/tool read {"path":"README.md"}');
    const before = (await member.json(`/api/sessions/${id}`)).body;
    expect(before.transcript.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(JSON.stringify(before.uiMessages)).toContain("data-tool_denied");
    await waitForBuild();
    const second = await startApp({ databaseUrl: app.databaseUrl });
    try {
      const again = await signedIn(second.url, "member@example.com");
      const after = (await again.json(`/api/sessions/${id}`)).body;
      expect(after.transcript).toEqual(before.transcript);
      expect(after.uiMessages).toEqual(before.uiMessages);
    } finally {
      await second.stop();
    }
  }, 240_000);

  it("GET /api/sessions lists only the caller's own sessions", async () => {
    const mine = await newSession(member);
    const theirs = await newSession(owner);
    const list = (await member.json("/api/sessions")).body.sessions.map((s: { id: string }) => s.id);
    expect(list).toContain(mine);
    expect(list).not.toContain(theirs);
    const ownerList = (await owner.json("/api/sessions")).body.sessions.map((s: { id: string }) => s.id);
    expect(ownerList).toContain(theirs);
    expect(ownerList).not.toContain(mine);
  });

  it("a client that disconnects mid-stream does not lose the turn: all messages are persisted in order", async () => {
    await setPolicy({ modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } }, exec: { security: "full" } });
    try {
      const id = await newSession(member);
      expect((await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { mode: "coding" } })).status).toBe(
        200,
      );
      const controller = new AbortController();
      const res = await member.fetch("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(say(id, '/tool exec {"command":"sleep 2"}\n/tool current_time {}')),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      expect((await reader.read()).done).toBe(false);
      controller.abort();
      const deadline = Date.now() + 20_000;
      let roles: string[] = [];
      while (Date.now() < deadline) {
        const body = (await member.json(`/api/sessions/${id}`)).body;
        roles = body.transcript.map((m: { role: string }) => m.role);
        if (roles.length >= 6) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      // The mode switch above left its marker line first.
      expect(roles).toEqual(["system", "user", "assistant", "tool", "tool", "assistant"]);
      const transcript = (await member.json(`/api/sessions/${id}`)).body.transcript;
      expect(transcript.map((m: { seq: number }) => m.seq)).toEqual(
        [...transcript.map((m: { seq: number }) => m.seq)].sort((a: number, b: number) => a - b),
      );
      expect(transcript.slice(3, 5).map((m: { parts: { status: string } }) => m.parts.status)).toEqual(["ok", "ok"]);
    } finally {
      await setPolicy({});
    }
  });

  describe("bad input", () => {
    it("malformed JSON is 400 INVALID_JSON", async () => {
      const res = await member.json("/api/chat", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"sessionId": "x", ',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("INVALID_JSON");
    });

    it("missing fields are 422", async () => {
      const id = await newSession(member);
      const chatRes = await member.json("/api/chat", { method: "POST", body: { sessionId: id } });
      expect(chatRes.status).toBe(422);
      expect(chatRes.body.error.code).toBe("VALIDATION_FAILED");
      expect((await member.json(`/api/sessions/${id}`, { method: "PATCH", body: {} })).status).toBe(422);
    });

    it("an unknown session id and another member's session id are the same 404", async () => {
      const theirs = await newSession(owner);
      const unknown = await member.json("/api/sessions/doesnotexist0000000000000");
      const foreign = await member.json(`/api/sessions/${theirs}`);
      expect(unknown.status).toBe(404);
      expect(foreign).toEqual(unknown);
      const chatUnknown = await member.json("/api/chat", {
        method: "POST",
        body: say("doesnotexist0000000000000", "hi"),
      });
      const chatForeign = await member.json("/api/chat", { method: "POST", body: say(theirs, "hi") });
      expect(chatUnknown.status).toBe(404);
      expect(chatForeign).toEqual(chatUnknown);
      const patchForeign = await member.json(`/api/sessions/${theirs}`, {
        method: "PATCH",
        body: { mode: "chat_safe" },
      });
      expect(patchForeign.status).toBe(404);
      expect((await owner.json(`/api/sessions/${theirs}`)).body.transcript).toEqual([]);
    });

    it("an oversize message is 413 and nothing is stored", async () => {
      const id = await newSession(member);
      const res = await member.json("/api/chat", { method: "POST", body: say(id, "x".repeat(25_000)) });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
      expect((await member.json(`/api/sessions/${id}`)).body.transcript).toEqual([]);
    });

    it("signed out is 401", async () => {
      const anon = new HttpClient(app.url);
      const id = await newSession(member);
      expect((await anon.json("/api/chat", { method: "POST", body: say(id, "hi") })).status).toBe(401);
      expect((await anon.json("/api/sessions")).status).toBe(401);
      expect((await anon.json(`/api/sessions/${id}`)).status).toBe(401);
      expect((await anon.json(`/api/sessions/${id}`, { method: "PATCH", body: { mode: "coding" } })).status).toBe(401);
    });
  });
});
