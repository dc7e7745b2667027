// Issue 11 across processes (SQLite, and PostgreSQL when configured), with the built app: two instances on one
// database hold one active turn per session and Stop works from the other instance; kill -9 of the server in
// the middle of a command or of a model stream, then a restart: the run is failed with a transcript line, the
// command does not survive, the transcript is complete and ordered, and the session takes new messages.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { signedIn, type HttpClient } from "../support/http-client";
import { newPostgresUrl, newSqliteUrl, prepareDatabase } from "../support/databases";
import { codingGrant, execLine, newCodingSession, say, setPolicy, until } from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";

const PG = process.env.TEST_DATABASE_URL_PG;
type Target = { url: string; drop?: () => Promise<void> };
const targets: Array<[string, () => Promise<Target>]> = [["sqlite", async () => ({ url: newSqliteUrl() })]];
if (PG) targets.push(["postgres", () => newPostgresUrl(PG)]);

// Short leases so a stalled holder is noticed quickly; the heartbeat runs every lease/3.
const ENV = { RUN_LEASE_SECONDS: "3" };

/** Running (not a zombie: where PID 1 does not reap, a dead command's process stays listed as defunct). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
  } catch {
    return false;
  }
}

/** Starts a chat turn and reads its stream in the background until `until` sees the chunk it waits for. */
async function startTurn(client: HttpClient, sessionId: string, text: string, stopAt: (type: string) => boolean) {
  const res = await client.fetch("/api/chat", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(say(sessionId, text)),
  });
  expect(res.status).toBe(200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return { reader, seen: buffer };
    buffer += decoder.decode(value);
    const types = [...buffer.matchAll(/"type":"([^"]+)"/g)].map((m) => m[1]!);
    if (types.some(stopAt)) return { reader, seen: buffer };
  }
}

describe.each(targets)("runs across instances and crashes (%s)", (_kind, make) => {
  let target: Target;
  let db: Db;
  const apps: RunningApp[] = [];

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    db = createDb(target.url);
  });

  afterAll(async () => {
    for (const a of apps) await a.stop();
    await db?.$disconnect();
    await target?.drop?.();
  });

  async function app(env: Record<string, string> = {}) {
    const a = await startApp({ databaseUrl: target.url, env: { ...ENV, ...env } });
    apps.push(a);
    return a;
  }

  async function member(baseUrl: string) {
    const client = await signedIn(baseUrl, "member@example.com");
    const memberId = (await client.json("/api/me")).body.user.id as string;
    // exec runs without approval here: these tests are about runs, not about approvals.
    await setPolicy(db, codingGrant(memberId, { security: "full" }), "runs instances test");
    return client;
  }

  const runningCall = (sessionId: string) =>
    until(
      "the command to run",
      () => db.toolCall.findFirst({ where: { sessionId, status: "running", pid: { not: null } } }),
      20_000,
      100,
    );

  it("two instances: one active turn per session (the other answers 409), and Stop from the other instance ends the command", async () => {
    const a = await app();
    const b = await app();
    const onA = await member(a.url);
    const onB = await signedIn(b.url, "member@example.com");
    const sessionId = await newCodingSession(onA);
    const turn = await startTurn(onA, sessionId, execLine("sleep 30"), (t) => t === "tool-input-available");
    const call = await runningCall(sessionId);
    expect(alive(call.pid!)).toBe(true);

    const second = await onB.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, "hello from B")),
    });
    expect(second.status).toBe(409);
    expect((await second.json()).error.message).toMatch(/already running/);

    const started = Date.now();
    const stop = await onB.json(`/api/sessions/${sessionId}/stop`, { method: "POST", body: {} });
    expect(stop).toMatchObject({ status: 200, body: { stopped: true } });
    expect(Date.now() - started).toBeLessThan(10_000);
    await until("the command to be killed", async () => !alive(call.pid!), 10_000, 100);
    // The refused turn left no run behind: the only run is the stopped one.
    expect(await db.agentRun.count({ where: { sessionId } })).toBe(1);
    const run = await db.agentRun.findFirstOrThrow({ where: { id: call.runId } });
    expect(run.status).toBe("aborted");
    expect(run.stopRequestedAt).not.toBeNull();
    expect((await db.toolCall.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("stopped");
    await turn.reader.cancel();
    // The session is free again, from either instance.
    const next = await onB.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, "hello again")),
    });
    expect(next.status).toBe(200);
    await next.text();
    await a.stop();
    await b.stop();
  });

  it("kill -9 mid-command, restart: the run is failed with a transcript line, the command is killed, the transcript is complete and ordered", async () => {
    const a = await app();
    const client = await member(a.url);
    const sessionId = await newCodingSession(client);
    await startTurn(client, sessionId, execLine("sleep 30"), (t) => t === "tool-input-available");
    const call = await runningCall(sessionId);
    process.kill(-a.process.pid!, "SIGKILL");
    await until(
      "the server to die",
      async () => a.process.exitCode !== null || a.process.signalCode !== null,
      10_000,
      50,
    );
    // The command dies with the server (bubblewrap's --die-with-parent), though it runs in its own process group;
    // recovery below still kills the recorded group, for a command that got past that.
    await until("the command to die with the server", async () => !alive(call.pid!), 10_000, 100);
    expect((await db.agentRun.findFirstOrThrow({ where: { sessionId } })).status).toBe("running");

    const a2 = await app();
    await until(
      "the abandoned run to be failed",
      async () => (await db.agentRun.findFirstOrThrow({ where: { sessionId } })).status === "failed",
      15_000,
      100,
    );
    await until("the command to be killed", async () => !alive(call.pid!), 10_000, 100);
    // The session's switch to coding left its marker line first; then the turn, complete and in order.
    const rows = await db.message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "system"]);
    expect(rows.map((r) => r.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(rows[0]!.parts).toMatchObject({ kind: "mode_changed", to: "coding" });
    expect(rows[3]).toMatchObject({ toolCallId: call.callId, parts: { output: { error_code: "INTERRUPTED" } } });
    expect(rows[4]!.content).toMatch(/interrupted/);
    expect((await db.toolCall.findUniqueOrThrow({ where: { id: call.id } })).status).toBe("failed");
    const again = await signedIn(a2.url, "member@example.com");
    const next = await again.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(sessionId, "are you there?")),
    });
    expect(next.status).toBe(200);
    await next.text();
    await a2.stop();
  });

  it("kill -9 mid-turn (the model is still streaming), restart: the run is failed with a notice after the user's message", async () => {
    const a = await app({ OFFLINE_MODEL_CHUNK_DELAY_MS: "400" });
    const client = await member(a.url);
    const sessionId = await newCodingSession(client);
    await startTurn(
      client,
      sessionId,
      "tell me something about the weather and the time of day, at length",
      (t) => t === "text-delta",
    );
    process.kill(-a.process.pid!, "SIGKILL");
    await until(
      "the server to die",
      async () => a.process.exitCode !== null || a.process.signalCode !== null,
      10_000,
      50,
    );
    const a2 = await app();
    await until(
      "the abandoned run to be failed",
      async () => (await db.agentRun.findFirstOrThrow({ where: { sessionId } })).status === "failed",
      15_000,
      100,
    );
    const rows = await db.message.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });
    // The mode-switch marker, the user's message, the notice.
    expect(rows.map((r) => r.role)).toEqual(["system", "user", "system"]);
    expect(rows[2]!.content).toMatch(/interrupted/);
    expect(await db.auditLog.count({ where: { action: "run.abandoned", sessionId } })).toBe(1);
    expect((await db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).activeRunId).toBeNull();
    await a2.stop();
  });
});
