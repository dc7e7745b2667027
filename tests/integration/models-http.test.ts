// Issue 32, several models over real HTTP, against an app of its own per database (MODELS is start-up
// configuration): a new chat names a configured model (400 for one that is not, 403 for one its agent does not run
// on, both audited and nothing created); the turn runs on the session's model (the OpenAI-compatible one reaches a
// local server in its wire format, the offline one never does); an agent saved with a model nobody configured is
// refused (422); and a second instance configured without that model refuses the chat's turn instead of quietly
// running it on another model.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb, type Db } from "@/lib/db/client";
import { startApp, type RunningApp } from "../support/app-server";
import { databaseTargets, prepareDatabase, type DatabaseTarget } from "../support/databases";
import { HttpClient, signedIn } from "../support/http-client";
import { chat, say, setPolicy } from "../support/approvals-helpers";
import { startFakeOpenAIServer, type FakeOpenAIServer } from "../support/fake-openai-server";

const FAKE = "openai-compatible:fake-model";

describe.each(databaseTargets())("several models (%s)", (_kind, make) => {
  let target: DatabaseTarget;
  let app: RunningApp;
  let second: RunningApp | undefined;
  let fake: FakeOpenAIServer;
  let db: Db;
  let member: HttpClient;
  let admin: HttpClient;
  let memberId: string;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    fake = await startFakeOpenAIServer({
      toolCall: { name: "current_time", arguments: "{}", id: "call_time" },
      finalText: "Fake model says hi.",
      fragmentSize: 4,
    });
    app = await startApp({
      databaseUrl: target.url,
      env: { MODELS: `offline,${FAKE}`, OPENAI_COMPATIBLE_BASE_URL: fake.baseUrl },
    });
    db = createDb(target.url);
    await setPolicy(db, {
      agents: {
        pinned: { name: "Pinned", model: "openai-compatible", usableBy: { roles: ["member"] } },
        free: { name: "Free", usableBy: { roles: ["member"] } },
        // Saved before the configuration changed (straight into the table): it runs on the default model, as before.
        stale: { name: "Stale", model: "anthropic/claude-gone", usableBy: { roles: ["member"] } },
      },
    });
    member = await signedIn(app.url, "member@example.com");
    admin = await signedIn(app.url, "admin@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
  }, 180_000);

  afterAll(async () => {
    await db?.$disconnect();
    await second?.stop();
    await app?.stop();
    await fake?.close();
    await target?.drop?.();
  });

  const create = (body: Record<string, unknown>) => member.json("/api/sessions", { method: "POST", body });

  it("a new chat names a configured model; without one it runs on the first; the chat says which and that there is a choice", async () => {
    const plain = await create({});
    expect(plain.status).toBe(201);
    expect(plain.body.model).toBe("offline");
    const picked = await create({ model: FAKE });
    expect(picked.status).toBe(201);
    expect(picked.body.model).toBe(FAKE);
    const shown = await member.json(`/api/sessions/${picked.body.id}`);
    expect(shown.body).toMatchObject({ model: FAKE, modelChoice: true });
    expect((await db.chatSession.findUniqueOrThrow({ where: { id: picked.body.id } })).model).toBe(FAKE);
  });

  it("refuses a model that is not configured (400), a malformed one (422) and one the agent does not run on (403); nothing is created, refusals are audited", async () => {
    const before = await db.chatSession.count({ where: { ownerId: memberId } });
    for (const model of [
      "openai:gpt-4o-mini",
      "offline:other",
      "OFFLINE",
      "openai-compatible",
      "fake-model",
      "openai-compatible/fake-model",
      "constructor",
      "toString",
    ]) {
      const res = await create({ model });
      expect(res.status, model).toBe(400);
      expect(res.body.error.message).toContain(`model "${model}" is not configured`);
    }
    for (const model of [5, "", "../x", "a b", "x".repeat(201), null])
      expect((await create({ model })).status, JSON.stringify(model)).toBe(422);
    const refused = await create({ agentId: "pinned", model: "offline" });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain(`the agent "pinned" does not run on the model "offline"`);
    expect(await db.chatSession.count({ where: { ownerId: memberId } })).toBe(before);
    const audits = await db.auditLog.findMany({ where: { actorId: memberId, action: "session.model_refused" } });
    expect(audits.length).toBe(9);
  });

  it("an agent that names a model runs on it; one that names none may run on any; one naming a gone model keeps the default", async () => {
    expect((await create({ agentId: "pinned" })).body.model).toBe(FAKE);
    expect((await create({ agentId: "free", model: FAKE })).body.model).toBe(FAKE);
    expect((await create({ agentId: "free" })).body.model).toBe("offline");
    expect((await create({ agentId: "stale" })).body.model).toBe("offline");
    expect((await create({ agentId: "stale", model: FAKE })).status).toBe(403);
  });

  it("the turn runs on the session's model: the OpenAI-compatible one reaches the local server, the offline one never does", async () => {
    const onFake = (await create({ model: FAKE })).body.id as string;
    const seen = fake.requests.length;
    const chunks = await chat(member, onFake, "hello there");
    expect(fake.requests.length).toBeGreaterThan(seen);
    expect(fake.requests[seen]!.body).toMatchObject({ model: "fake-model", stream: true });
    expect(
      chunks
        .filter((c) => c.type === "text-delta")
        .map((c) => c.delta)
        .join(""),
    ).toBe("Fake model says hi.");
    const offline = (await create({})).body.id as string;
    const after = fake.requests.length;
    await chat(member, offline, "hello there");
    expect(fake.requests.length).toBe(after);
    // The policy saw the session's provider and model (the audit of the fake model's tool call names them).
    const call = await db.auditLog.findFirst({ where: { sessionId: onFake, action: "tool.call" } });
    expect(JSON.stringify(call?.details ?? {})).not.toContain("offline");
  });

  it("an agent saved with a model that is not configured is refused (422) naming the agent; a configured one saves", async () => {
    const { body } = await admin.json("/api/policy");
    const agents = { ...(body.document.agents ?? {}) } as Record<string, unknown>;
    delete agents.stale; // the stored document has it (written into the table); it would be refused too
    for (const model of ["anthropic/claude-gone", "openai", "offline:other", "gpt-5"]) {
      const res = await admin.json("/api/policy", {
        method: "PUT",
        body: {
          baseVersion: body.version,
          document: { ...body.document, agents: { ...agents, odd: { name: "Odd", model } } },
        },
      });
      expect(res.status, model).toBe(422);
      expect(res.body.error.message).toContain("agents.odd.model");
    }
    for (const model of ["offline", "openai-compatible/fake-model", "fake-model"]) {
      const current = (await admin.json("/api/policy")).body;
      const res = await admin.json("/api/policy", {
        method: "PUT",
        body: {
          baseVersion: current.version,
          document: { ...current.document, agents: { ...agents, odd: { name: "Odd", model } } },
        },
      });
      expect(res.status, `${model}: ${JSON.stringify(res.body)}`).toBe(200);
    }
  });

  it("a second instance without that model refuses the chat's turn (409, the model named) and leaves no run behind", async () => {
    const id = (await create({ model: FAKE })).body.id as string;
    second = await startApp({ databaseUrl: target.url, env: { MODELS: "offline" } });
    const there = await signedIn(second.url, "member@example.com");
    const res = await there.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(id, "hi")),
    });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({
      code: "CONFLICT",
      message: expect.stringContaining(`the model "${FAKE}" of this chat is no longer configured`),
    });
    expect(await db.agentRun.count({ where: { sessionId: id } })).toBe(0);
    expect((await db.chatSession.findUniqueOrThrow({ where: { id } })).activeRunId).toBeNull();
    // A chat on a model it has still runs there.
    const ok = (await there.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    expect(JSON.stringify(await chat(there, ok, "hello"))).toContain("text");
  }, 120_000);
});
