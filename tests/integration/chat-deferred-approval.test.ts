// Issue 31 over HTTP on both databases: a chat request that outlives APPROVAL_TURN_WAIT_SECONDS ends its turn
// pending (APPROVAL_PENDING to the model, the chat free, the request still in the inbox); the same call made again
// applies the decision once through the matcher (undecided: refused as pending, nothing asked again; allowed: runs
// once under the earlier call's claim; denied: refused once with the owner's reason; expired: refused). The
// requester withdraws a deferred request (only they, only then); an owner deciding at the same moment: one wins.
// On SQLite, two built apps on one file race their decisions: one winner, the rest 409 (never a 500).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApp, type RunningApp } from "../support/app-server";
import { signedIn, type HttpClient } from "../support/http-client";
import { newPostgresUrl, newSqliteUrl, prepareDatabase } from "../support/databases";
import {
  askPending,
  chat,
  codingGrant,
  execLine,
  newCodingSession,
  openSse,
  setPolicy,
  until,
} from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";

const PG = process.env.TEST_DATABASE_URL_PG;
type Target = { url: string; drop?: () => Promise<void> };
const targets: Array<[string, () => Promise<Target>]> = [["sqlite", async () => ({ url: newSqliteUrl() })]];
if (PG) targets.push(["postgres", () => newPostgresUrl(PG)]);

// The turn stops waiting after 2 s; the request itself lives an hour.
const env = { APPROVAL_TURN_WAIT_SECONDS: "2", APPROVAL_TTL_SECONDS: "3600", APPROVALS_SELF_DECISION: "deny" };

describe.each(targets)("a request that outlives its turn's wait (%s)", (kind, make) => {
  let target: Target;
  let db: Db;
  let app: RunningApp;
  let second: RunningApp | undefined;
  let member: HttpClient;
  let owner: HttpClient;

  beforeAll(async () => {
    target = await make();
    prepareDatabase(target.url);
    db = createDb(target.url);
    app = await startApp({ databaseUrl: target.url, env });
    member = await signedIn(app.url, "member@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    const memberId = (await member.json("/api/me")).body.user.id as string;
    await setPolicy(db, codingGrant(memberId));
  });

  afterAll(async () => {
    await second?.stop();
    await app?.stop();
    await db?.$disconnect();
    await target?.drop?.();
  });

  /** A request whose turn has ended pending: the run completed, the call marked deferred, the session free. */
  async function deferredRequest(command: string) {
    const sessionId = await newCodingSession(member);
    const { approvalId, callId } = await askPending(member, sessionId, execLine(command));
    await until("the turn to end pending", async () => {
      const call = await db.toolCall.findFirst({ where: { sessionId, callId } });
      const session = await db.chatSession.findUnique({ where: { id: sessionId } });
      return call?.deferredAt && session?.activeRunId === null;
    });
    return { sessionId, approvalId, callId, command };
  }

  const line = (rows: Array<{ role: string; toolCallId: string | null; parts: unknown }>, callId: string) =>
    rows.find((r) => r.role === "tool" && r.toolCallId === callId);
  const deniedCode = (chunks: Array<{ type: string; data?: { errorCode?: string; message?: string } }>) =>
    chunks.find((c) => c.type === "data-tool_denied")?.data;
  const approvalsOf = (sessionId: string) => db.approval.count({ where: { sessionId } });

  it("the turn ends pending past the wait: APPROVAL_PENDING to the model, the chat free, the request still in the inbox; an undecided repeat asks nothing again; allowed, the repeat runs once; the next repeat asks anew", async () => {
    const { sessionId, approvalId, callId, command } = await deferredRequest("echo deferred-allow");
    const rows = (await member.json(`/api/sessions/${sessionId}`)).body.transcript;
    expect(line(rows, callId)!.parts).toMatchObject({
      status: "pending",
      output: { error_code: "APPROVAL_PENDING", deferred: true, approvalId },
    });
    const run = await db.agentRun.findFirstOrThrow({ where: { sessionId } });
    expect(run.status).toBe("completed");
    expect((await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect(
      (await owner.json("/api/approvals?status=pending")).body.approvals.map((a: { id: string }) => a.id),
    ).toContain(approvalId);
    expect(await db.auditLog.count({ where: { action: "run.deferred", sessionId } })).toBe(1);

    // Undecided: the same call again is refused as pending, and no second request is made.
    const waiting = await chat(member, sessionId, execLine(command));
    expect(deniedCode(waiting)).toMatchObject({ errorCode: "APPROVAL_PENDING" });
    expect(await approvalsOf(sessionId)).toBe(1);

    // Allowed: the earlier run does not resume (it ended); the decision waits for the call made again.
    expect(
      (await owner.json(`/api/approvals/${approvalId}/decision`, { method: "POST", body: { decision: "allow-once" } }))
        .status,
    ).toBe(200);
    expect((await db.toolCall.findFirstOrThrow({ where: { sessionId, callId } })).status).toBe("approved");
    const ran = await chat(member, sessionId, execLine(command));
    const output = ran.find((c) => c.type === "tool-output-available");
    expect(output?.output).toMatchObject({ exitCode: 0 });
    // Told under the repeat's own id (the live stream knows that one), though the earlier call is what ran.
    expect(output?.toolCallId).not.toBe(callId);
    const earlier = await db.toolCall.findFirstOrThrow({ where: { sessionId, callId } });
    expect(earlier.status).toBe("done");
    expect((await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).consumedAt).not.toBeNull();
    // The earlier card shows the result too, and the run goes on to the model's answer.
    const after = (await member.json(`/api/sessions/${sessionId}`)).body.transcript;
    expect(line(after, callId)!.parts).toMatchObject({ status: "ok" });
    expect(after.at(-1)).toMatchObject({ role: "assistant" });
    expect(after.at(-1).content).toContain('The tool "exec" returned');

    // Once: the call made a third time asks an owner anew.
    const again = await askPending(member, sessionId, execLine(command));
    expect(again.approvalId).not.toBe(approvalId);
    expect(
      await db.auditLog.count({ where: { action: "tool.call", decision: "allow", sessionId, toolName: "exec" } }),
    ).toBe(1);
  });

  it("denied: the repeat is refused once with the owner's reason, the next repeat asks anew", async () => {
    const { sessionId, approvalId, callId, command } = await deferredRequest("echo deferred-deny");
    expect(
      (
        await owner.json(`/api/approvals/${approvalId}/decision`, {
          method: "POST",
          body: { decision: "deny", reason: "not on a Sunday" },
        })
      ).status,
    ).toBe(200);
    const refused = await chat(member, sessionId, execLine(command));
    expect(deniedCode(refused)).toMatchObject({ errorCode: "APPROVAL_DENIED" });
    expect(deniedCode(refused)!.message).toContain("not on a Sunday");
    const rows = (await member.json(`/api/sessions/${sessionId}`)).body.transcript;
    expect(line(rows, callId)!.parts).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_DENIED" } });
    expect(await approvalsOf(sessionId)).toBe(1);
    const again = await askPending(member, sessionId, execLine(command));
    expect(again.approvalId).not.toBe(approvalId);
  });

  it("expired: the repeat is refused as expired and nothing runs", async () => {
    const { sessionId, approvalId, callId, command } = await deferredRequest("echo deferred-expire");
    await db.approval.update({ where: { id: approvalId }, data: { expiresAt: new Date(Date.now() - 1000) } });
    const refused = await chat(member, sessionId, execLine(command));
    expect(deniedCode(refused)).toMatchObject({ errorCode: "APPROVAL_EXPIRED" });
    expect((await db.toolCall.findFirstOrThrow({ where: { sessionId, callId } })).status).toBe("expired");
    expect(await db.auditLog.count({ where: { action: "tool.call", decision: "allow", sessionId } })).toBe(0);
  });

  it("a hostile model's repeat with changed arguments is no repeat: it asks anew, the earlier request stays as it was", async () => {
    const { sessionId, approvalId } = await deferredRequest("echo deferred-args");
    const other = await askPending(member, sessionId, execLine("echo deferred-args && cat /etc/passwd"));
    expect(other.approvalId).not.toBe(approvalId);
    expect((await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
  });

  it("withdraw: only the requester, only a deferred pending request; the inbox drops it live, audited; a decision after it is 409; the repeat asks anew", async () => {
    const { sessionId, approvalId, callId, command } = await deferredRequest("echo deferred-withdraw");
    const admin = await signedIn(app.url, "admin@example.com");
    for (const who of [owner, admin])
      expect((await who.json(`/api/approvals/${approvalId}/withdraw`, { method: "POST" })).status).toBe(404);
    expect((await member.json(`/api/approvals/c${"0".repeat(24)}/withdraw`, { method: "POST" })).status).toBe(404);
    expect(
      (await member.json(`/api/approvals/${encodeURIComponent("../../x")}/withdraw`, { method: "POST" })).status,
    ).toBeLessThan(500);
    const anonymous = await fetch(`${app.url}/api/approvals/${approvalId}/withdraw`, { method: "POST" });
    expect([401, 403]).toContain(anonymous.status);

    const inbox = openSse(owner, "/api/approvals/stream");
    await inbox.ready;
    const res = await member.json(`/api/approvals/${approvalId}/withdraw`, { method: "POST" });
    expect(res.status).toBe(200);
    const gone = await inbox.waitFor((e) => e.event === "approval.expired" && e.data.payload.id === approvalId);
    expect(gone.data.payload).toMatchObject({ resolveReason: "withdrawn by the requester" });
    await inbox.close();
    expect(
      (await owner.json("/api/approvals?status=pending")).body.approvals.map((a: { id: string }) => a.id),
    ).not.toContain(approvalId);
    expect(await db.auditLog.count({ where: { action: "approval.withdrawn", callId } })).toBe(1);
    expect((await db.toolCall.findFirstOrThrow({ where: { sessionId, callId } })).status).toBe("stopped");
    expect(
      (await owner.json(`/api/approvals/${approvalId}/decision`, { method: "POST", body: { decision: "allow-once" } }))
        .status,
    ).toBe(409);
    expect((await member.json(`/api/approvals/${approvalId}/withdraw`, { method: "POST" })).status).toBe(409);
    const again = await askPending(member, sessionId, execLine(command));
    expect(again.approvalId).not.toBe(approvalId);
  });

  it("withdraw is refused (409) while the turn still waits on the request: Stop ends that", async () => {
    const sessionId = await newCodingSession(member);
    const { approvalId, callId } = await askPending(member, sessionId, execLine("echo still-waiting"));
    // The state of a turn still waiting (the sweep may defer it any moment: the row is put back as it was).
    await db.agentRun.updateMany({ where: { sessionId }, data: { updatedAt: new Date(Date.now() + 3_600_000) } });
    await db.toolCall.updateMany({ where: { sessionId, callId }, data: { deferredAt: null } });
    const res = await member.json(`/api/approvals/${approvalId}/withdraw`, { method: "POST" });
    expect(res.status).toBe(409);
    expect((await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect((await member.json(`/api/sessions/${sessionId}/stop`, { method: "POST" })).status).toBe(200);
  });

  it("an owner deciding while the requester withdraws: one of the two wins, and the call keeps the winner's outcome", async () => {
    for (let round = 0; round < 3; round++) {
      const { sessionId, approvalId, callId } = await deferredRequest(`echo race-${round}`);
      const [decided, withdrawn] = await Promise.all([
        owner.json(`/api/approvals/${approvalId}/decision`, { method: "POST", body: { decision: "allow-once" } }),
        member.json(`/api/approvals/${approvalId}/withdraw`, { method: "POST" }),
      ]);
      expect([decided.status, withdrawn.status].sort()).toEqual([200, 409]);
      const approval = await db.approval.findUniqueOrThrow({ where: { id: approvalId } });
      const call = await db.toolCall.findFirstOrThrow({ where: { sessionId, callId } });
      if (decided.status === 200) expect([approval.status, call.status]).toEqual(["approved", "approved"]);
      else expect([approval.status, call.status]).toEqual(["expired", "stopped"]);
    }
  });

  // A decision's transaction writes first (its conditional update), so this race passed with DEFERRED transactions
  // too (checked with a build without the change): the read-then-write case is tests/integration/sqlite-immediate.test.ts.
  it.runIf(kind === "sqlite")(
    "a second built app on the same SQLite file: decisions racing on both give one winner, the rest 409 (no 5xx)",
    async () => {
      second = await startApp({ databaseUrl: target.url, env });
      const owners = [owner, await signedIn(second.url, "owner@example.com")];
      for (let round = 0; round < 3; round++) {
        const { approvalId } = await deferredRequest(`echo two-apps-${round}`);
        const statuses = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            owners[i % 2]!.json(`/api/approvals/${approvalId}/decision`, {
              method: "POST",
              body: { decision: i % 3 ? "deny" : "allow-once" },
            }).then((r) => r.status),
          ),
        );
        expect(statuses.filter((s) => s === 200)).toHaveLength(1);
        expect(statuses.filter((s) => s === 409)).toHaveLength(11);
        const callId = (await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).callId;
        expect(await db.auditLog.count({ where: { action: "approval.resolved", callId } })).toBe(1);
      }
    },
  );
});
