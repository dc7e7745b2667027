// Issue 32 over real HTTP on every app target (SQLite and PostgreSQL): edit and regenerate truncate the transcript
// (the later lines leave the transcript, the model's history and search; audited; 409 while a turn is active; of two
// concurrent edits one wins), GET /api/search finds the caller's own message text literally and case-insensitively
// (`%` and `_` are not wildcards), and an ask_user answer is checked on the server (422 not offered, 404 unknown,
// 409 answered).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, signedIn } from "../support/http-client";
import { chat, say, transcript } from "../support/approvals-helpers";
import { readUiStream } from "../support/ui-stream";
import { appTargets } from "../support/targets";
import { createDb, type Db } from "@/lib/db/client";

describe.each(appTargets())("chat basics over HTTP (%s)", (_kind, app) => {
  let db: Db;
  let member: HttpClient;
  let owner: HttpClient;

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
  });
  afterAll(async () => {
    await db.$disconnect();
  });

  async function newSession(client: HttpClient) {
    const res = await client.json("/api/sessions", { method: "POST", body: {} });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }
  /** A chat turn with extra body fields; the stream is read to its end when it answers 200. */
  async function post(client: HttpClient, sessionId: string, text: string, extra: Record<string, unknown>) {
    const res = await client.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...say(sessionId, text), ...extra }),
    });
    if (res.status === 200) return { status: 200, body: await readUiStream(res) };
    return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } };
  }
  const userLines = async (client: HttpClient, sessionId: string) =>
    (await transcript(client, sessionId)).filter((r) => r.role === "user");

  it("the chat stream is sent uncompressed even to a client that accepts gzip (each part leaves as it is written)", async () => {
    // A gzip flush completes on the event loop: compressed, the first part reached the client only at the turn's end.
    const id = await newSession(member);
    const res = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json", "accept-encoding": "gzip, deflate" },
      body: JSON.stringify(say(id, "hello there")),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(res.headers.get("cache-control")).toContain("no-transform");
    await readUiStream(res);
  });

  it("edit: the transcript is truncated at the edited message and continues from the new text, audited", async () => {
    const id = await newSession(member);
    await chat(member, id, "first question zebra");
    await chat(member, id, "second question okapi");
    const before = await userLines(member, id);
    const second = (before[1] as unknown as { id: string }).id;
    const res = await post(member, id, "second question, edited", { rewindFrom: second });
    expect(res.status).toBe(200);
    const rows = await transcript(member, id);
    expect(rows.filter((r) => r.role === "user").map((r) => r.content)).toEqual([
      "first question zebra",
      "second question, edited",
    ]);
    expect(rows.some((r) => r.content.includes("okapi"))).toBe(false);
    // Kept in the database for the record, marked superseded, and audited with who and where.
    const superseded = await db.message.findMany({ where: { sessionId: id, supersededAt: { not: null } } });
    expect(superseded.length).toBeGreaterThanOrEqual(2);
    expect(superseded.some((m) => m.content === "second question okapi")).toBe(true);
    const audit = await db.auditLog.findMany({ where: { sessionId: id, action: "chat.rewound" } });
    expect(audit).toHaveLength(1);
    expect(audit[0]!.details).toMatchObject({ messageId: second });
    // Out of search too.
    expect(
      (await member.json(`/api/search?q=okapi`)).body.results.filter((h: { sessionId: string }) => h.sessionId === id),
    ).toEqual([]);
    expect(
      (await member.json(`/api/search?q=zebra`)).body.results.filter(
        (h: { sessionId: string; role: string }) => h.sessionId === id && h.role === "user",
      ),
    ).toHaveLength(1);
  });

  it("regenerate: the last question is sent again in place of itself; the old answer is gone", async () => {
    const id = await newSession(member);
    await chat(member, id, "what time is it?");
    const [question] = await userLines(member, id);
    const qid = (question as unknown as { id: string }).id;
    const res = await post(member, id, "what time is it?", { rewindFrom: qid });
    expect(res.status).toBe(200);
    const rows = await transcript(member, id);
    expect(rows.filter((r) => r.role === "user")).toHaveLength(1);
    expect(rows.filter((r) => r.role === "tool")).toHaveLength(1);
    // Editing the superseded line again: another edit already replaced it.
    const again = await post(member, id, "stale edit", { rewindFrom: qid });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ error: { code: "CONFLICT" } });
  });

  it("refuses an edit while a turn is active (409), of another chat's or member's message (404), and a malformed id (422); nothing changes", async () => {
    const id = await newSession(member);
    await chat(member, id, "keep me");
    const [line] = await userLines(member, id);
    const lineId = (line as unknown as { id: string }).id;
    // A turn held by another instance (its lease far ahead): the session's claim is taken.
    const runId = `c${Date.now().toString(36)}busyrun`;
    await db.agentRun.create({
      data: {
        id: runId,
        sessionId: id,
        status: "running",
        leaseOwner: "other-instance",
        leaseExpiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    await db.chatSession.update({ where: { id }, data: { activeRunId: runId } });
    try {
      const busy = await post(member, id, "edited while busy", { rewindFrom: lineId });
      expect(busy.status).toBe(409);
    } finally {
      await db.chatSession.update({ where: { id }, data: { activeRunId: null } });
      await db.agentRun.update({ where: { id: runId }, data: { status: "aborted" } });
    }
    const other = await newSession(member);
    await chat(member, other, "other chat");
    const [otherLine] = await userLines(member, other);
    const cross = await post(member, id, "cross-chat edit", {
      rewindFrom: (otherLine as unknown as { id: string }).id,
    });
    expect(cross.status).toBe(404);
    const theirs = await newSession(owner);
    await chat(owner, theirs, "owner's words");
    const [ownerLine] = await userLines(owner, theirs);
    expect(
      (await post(member, theirs, "mine now", { rewindFrom: (ownerLine as unknown as { id: string }).id })).status,
    ).toBe(404);
    expect((await post(member, id, "x", { rewindFrom: "../../etc" })).status).toBe(422);
    // An assistant line is not a message of the person's to edit.
    const answer = (await transcript(member, id)).find((r) => r.role === "assistant") as unknown as { id: string };
    expect((await post(member, id, "x", { rewindFrom: answer.id })).status).toBe(404);
    expect((await userLines(member, id)).map((r) => r.content)).toEqual(["keep me"]);
    expect((await userLines(owner, theirs)).map((r) => r.content)).toEqual(["owner's words"]);
    expect(
      await db.message.count({ where: { sessionId: { in: [id, other, theirs] }, supersededAt: { not: null } } }),
    ).toBe(0);
  });

  it("two concurrent edits of one message: exactly one wins, the other answers 409", async () => {
    const id = await newSession(member);
    await chat(member, id, "original");
    const [line] = await userLines(member, id);
    const lineId = (line as unknown as { id: string }).id;
    const results = await Promise.all([
      post(member, id, "edit A", { rewindFrom: lineId }),
      post(member, id, "edit B", { rewindFrom: lineId }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const users = await userLines(member, id);
    expect(users).toHaveLength(1);
    expect(["edit A", "edit B"]).toContain(users[0]!.content);
  });

  it("search: literal, case-insensitive, own chats only, 1-200 characters", async () => {
    const tag = `q${Date.now().toString(36)}`;
    const id = await newSession(member);
    await chat(member, id, `${tag} 100% Sure_Thing`);
    await chat(member, id, `${tag} 1000 SureXThing`);
    const theirs = await newSession(owner);
    await chat(owner, theirs, `${tag} owner secret 100%`);
    const search = async (q: string) => {
      const res = await member.json(`/api/search?${new URLSearchParams({ q })}`);
      expect(res.status).toBe(200);
      // The offline model echoes each message in its answer: the person's own lines are the ones counted.
      return (res.body.results as Array<{ sessionId: string; snippet: string; role: string }>).filter(
        (h) => h.role === "user" && h.snippet.includes(tag),
      );
    };
    expect((await search(`${tag} 100%`)).map((h) => h.snippet)).toEqual([`${tag} 100% Sure_Thing`]);
    expect((await search(`${tag} 100`)).length).toBe(2);
    // `_` is a character, not "any one character": SureXThing does not match.
    expect((await search("sure_thing")).map((h) => h.snippet)).toEqual([`${tag} 100% Sure_Thing`]);
    expect((await search(`${tag.toUpperCase()} 1000 surexthing`)).length).toBe(1);
    expect((await search("%")).every((h) => h.snippet.includes("%"))).toBe(true);
    // The owner's message never reaches the member.
    expect((await search("owner secret")).length).toBe(0);
    expect(
      (await owner.json(`/api/search?q=${encodeURIComponent(`${tag} owner secret`)}`)).body.results.filter(
        (h: { role: string }) => h.role === "user",
      ),
    ).toHaveLength(1);
    for (const q of ["", "x".repeat(201)]) {
      const res = await member.json(`/api/search?${new URLSearchParams({ q })}`);
      expect(res.status).toBe(422);
      expect(res.body.error.message).toMatch(/q is (empty|longer than 200)/);
    }
    expect((await member.json("/api/search")).status).toBe(422);
    expect((await member.json(`/api/search?q=${"y".repeat(200)}`)).status).toBe(200);
    expect((await new HttpClient(app.url).json("/api/search?q=a")).status).toBe(401);
  });

  it("ask_user: a choice is the reply; one not offered 422, an unknown question 404, answered twice 409", async () => {
    const id = await newSession(member);
    const chunks = await chat(
      member,
      id,
      `/tool ask_user ${JSON.stringify({ question: "Which colour?", choices: ["red", "blue"] })}`,
    );
    const output = chunks.find((c) => c.type === "tool-output-available");
    expect(output?.output).toMatchObject({ asked: true, question: "Which colour?", choices: ["red", "blue"] });
    const callId = output!.toolCallId as string;
    expect((await post(member, id, "green", { answerTo: callId })).status).toBe(422);
    expect((await post(member, id, "red", { answerTo: "no-such-call" })).status).toBe(404);
    // Another member cannot answer it (the chat is not theirs).
    expect((await post(owner, id, "red", { answerTo: callId })).status).toBe(404);
    expect((await post(member, id, "red", { answerTo: callId })).status).toBe(200);
    const second = await post(member, id, "blue", { answerTo: callId });
    expect(second.status).toBe(409);
    expect((await userLines(member, id)).map((r) => r.content).slice(-1)).toEqual(["red"]);
    // A call that is not a question is not answerable.
    const timeChunks = await chat(member, id, "what time is it?");
    const timeCall = timeChunks.find((c) => c.type === "tool-output-available")!.toolCallId as string;
    expect((await post(member, id, "red", { answerTo: timeCall })).status).toBe(404);
  });
});
