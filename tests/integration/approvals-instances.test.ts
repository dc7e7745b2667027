// The run resumes by itself after a decision even when the app restarted while the approval was pending
// (SQLite and PostgreSQL), and, on PostgreSQL, across two app instances on one database: a request made
// through one appears on the inbox stream of the other, and a decision made there resumes the run.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { signedIn } from "../support/http-client";
import { newPostgresUrl, newSqliteUrl, prepareDatabase } from "../support/databases";
import {
  askPending,
  codingGrant,
  execLine,
  newCodingSession,
  openSse,
  setPolicy,
  settledTranscript,
} from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";

const PG = process.env.TEST_DATABASE_URL_PG;

type Target = { url: string; drop?: () => Promise<void> };
const targets: Array<[string, () => Promise<Target>]> = [["sqlite", async () => ({ url: newSqliteUrl() })]];
if (PG) targets.push(["postgres", () => newPostgresUrl(PG)]);

async function grantMember(db: Db, baseUrl: string) {
  const member = await signedIn(baseUrl, "member@example.com");
  const memberId = (await member.json("/api/me")).body.user.id as string;
  await setPolicy(db, codingGrant(memberId));
  return member;
}

describe.each(targets)("approvals survive a restart (%s)", (_kind, make) => {
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

  it("pending on app A, A stops, A' starts on the same database, the owner decides there: the tool runs and the model answers", async () => {
    const a = await startApp({ databaseUrl: target.url });
    apps.push(a);
    const member = await grantMember(db, a.url);
    const sessionId = await newCodingSession(member);
    const { approvalId, callId } = await askPending(member, sessionId, execLine("echo restarted >> restart.txt"));
    await a.stop();

    const a2 = await startApp({ databaseUrl: target.url });
    apps.push(a2);
    const owner = await signedIn(a2.url, "owner@example.com");
    const inbox = await owner.json("/api/approvals?status=pending");
    expect(inbox.body.approvals.map((x: { id: string }) => x.id)).toContain(approvalId);
    const res = await owner.json(`/api/approvals/${approvalId}/decision`, {
      method: "POST",
      body: { decision: "allow-once" },
    });
    expect(res.status).toBe(200);
    const member2 = await signedIn(a2.url, "member@example.com");
    const { tool, answer } = await settledTranscript(member2, sessionId, callId);
    expect(tool.parts.status).toBe("ok");
    expect(tool.parts.output).toMatchObject({ exitCode: 0 });
    expect(answer.content).toContain('The tool "exec" returned');
    expect((await db.agentRun.findFirstOrThrow({ where: { sessionId }, orderBy: { createdAt: "desc" } })).status).toBe(
      "completed",
    );
    await a2.stop();
  });

  it("decided while no app was running (the deciding instance died before resuming): the next app to start resumes the run on its own", async () => {
    const a = await startApp({ databaseUrl: target.url });
    apps.push(a);
    const member = await grantMember(db, a.url);
    const sessionId = await newCodingSession(member);
    const { approvalId, callId } = await askPending(member, sessionId, execLine("rm -rf data"));
    await a.stop();
    // The decision is in the database (the same conditional update an instance makes), nobody resumed the run.
    const won = await db.approval.updateMany({
      where: { id: approvalId, status: "pending" },
      data: { status: "denied", decision: "deny", resolvedAt: new Date(), resolveReason: "restart test" },
    });
    expect(won.count).toBe(1);
    expect((await db.agentRun.findFirstOrThrow({ where: { sessionId }, orderBy: { createdAt: "desc" } })).status).toBe(
      "waiting_approval",
    );
    const b = await startApp({ databaseUrl: target.url });
    apps.push(b);
    const memberB = await signedIn(b.url, "member@example.com");
    const { tool, answer } = await settledTranscript(memberB, sessionId, callId);
    expect(tool.parts.output).toMatchObject({ error_code: "APPROVAL_DENIED" });
    expect(tool.parts.output.message).toContain("restart test");
    expect(answer.content).toContain("it was declined by an owner");
    await b.stop();
  });
});

describe.skipIf(!PG)("two app instances on one PostgreSQL database", () => {
  let drop: (() => Promise<void>) | undefined;
  let db: Db;
  let one: RunningApp;
  let two: RunningApp;

  beforeAll(async () => {
    const pg = await newPostgresUrl(PG!);
    drop = pg.drop;
    prepareDatabase(pg.url);
    db = createDb(pg.url);
    // A one-minute safety poll: whatever reaches the other instance sooner came by NOTIFY.
    const env = { EVENT_POLL_MS: "60000" };
    [one, two] = await Promise.all([startApp({ databaseUrl: pg.url, env }), startApp({ databaseUrl: pg.url, env })]);
  });

  afterAll(async () => {
    await one?.stop();
    await two?.stop();
    await db?.$disconnect();
    await drop?.();
  });

  it("a request made through instance 1 appears on instance 2's inbox stream; the decision on 2 resumes the run started on 1", async () => {
    const member = await grantMember(db, one.url);
    const ownerOnTwo = await signedIn(two.url, "owner@example.com");
    const inbox = openSse(ownerOnTwo, "/api/approvals/stream");
    await inbox.ready;
    const sessionId = await newCodingSession(member);
    const sessionStream = openSse(member, `/api/sessions/${sessionId}/events`);
    await sessionStream.ready;
    const t0 = Date.now();
    const { approvalId, callId } = await askPending(member, sessionId, execLine("echo two-instances >> scale.txt"));
    const requested = await inbox.waitFor(
      (e) => e.event === "approval.requested" && e.data.payload.id === approvalId,
      30_000,
    );
    // NOTIFY carried it: these instances poll the event table only once a minute (EVENT_POLL_MS).
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(requested.data.payload).toMatchObject({
      toolName: "exec",
      command: "echo two-instances >> scale.txt",
      status: "pending",
    });
    const res = await ownerOnTwo.json(`/api/approvals/${approvalId}/decision`, {
      method: "POST",
      body: { decision: "allow-once" },
    });
    expect(res.status).toBe(200);
    await inbox.waitFor((e) => e.event === "approval.resolved" && e.data.payload.id === approvalId, 5_000);
    const { tool, answer } = await settledTranscript(member, sessionId, callId);
    expect(tool.parts.status).toBe("ok");
    expect(answer.content).toContain('The tool "exec" returned');
    // The member, connected to instance 1, hears of the run resuming on instance 2.
    await sessionStream.waitFor((e) => e.event === "run.updated" && e.data.payload.status === "completed", 10_000);
    await Promise.all([inbox.close(), sessionStream.close()]);
    // Exactly one execution, though both instances could have resumed it.
    expect(await db.auditLog.count({ where: { action: "tool.call", callId, decision: "allow" } })).toBe(1);
  });

  it("P22 50 concurrent resolves split across both instances: exactly one wins", async () => {
    const member = await grantMember(db, one.url);
    const owners = await Promise.all([signedIn(one.url, "owner@example.com"), signedIn(two.url, "owner@example.com")]);
    const sessionId = await newCodingSession(member);
    const { approvalId } = await askPending(member, sessionId, execLine("rm -rf data"));
    const statuses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        owners[i % 2]!.json(`/api/approvals/${approvalId}/decision`, {
          method: "POST",
          body: { decision: "deny" },
        }).then((r) => r.status),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
  });
});
