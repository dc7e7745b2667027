// Issue 11 on a real database (SQLite, and PostgreSQL when configured), through the real run engine:
// a paused run owns its turn (later messages are refused while it waits, and even a message slipped into the
// transcript is never part of its history), each call id runs at most once, expiry and denial run nothing,
// allow-once is consumed once, an outcome commits whole or not at all, and Stop ends a paused run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { codingGrant } from "../support/approvals-helpers";
import {
  dbTargets,
  finishPart,
  scriptedModel,
  textParts,
  toolCallPart,
  useAgentOnDatabase,
} from "../support/agent-harness";
import { resetEventBus } from "../support/databases";

describe.each(dbTargets())("a run owns its turn; each call at most once (%s)", (kind, make) => {
  // lib/config reads WORKSPACE_ROOT once: set before the harness loads the modules, so commands run in a temp dir.
  const workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-runs-ws-"));
  beforeAll(() => {
    process.env.WORKSPACE_ROOT = workspaceRoot;
  });
  const h = useAgentOnDatabase(make);

  async function setup() {
    const { agent, member } = h;
    await agent.setPolicy(codingGrant(member.id));
    const { createChatSession } = await import("@/lib/runs/sessions");
    const { changeSessionMode } = await import("@/lib/sessions/access");
    const session = await createChatSession({ user: member });
    await changeSessionMode({ user: member, sessionId: session.id, mode: "coding" });
    const { createGrant } = await import("@/lib/db/allowlist");
    await createGrant({
      kind: "exec",
      pattern: "mktemp *",
      words: ["mktemp"],
      prefix: true,
      scope: "everyone",
      scopeId: "",
      createdById: h.owner.id,
    });
    return { sessionId: session.id, dir: path.join(workspaceRoot, member.id) };
  }

  const exec = (command: string) => `/tool exec ${JSON.stringify({ command })}`;
  // Each run of `mktemp -p . NAME.XXXXXX` leaves one more file: counting them counts executions.
  const runs = (dir: string, name: string) =>
    fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.startsWith(`${name}.`)).length : 0;
  const made = (name: string) => `mktemp -p . ${name}.XXXXXX`;
  // A redirection always needs an owner's approval, even for an allow-listed executable.
  const asked = (name: string) => `${made(name)} > /dev/null`;

  async function host() {
    return import("@/lib/runs/host");
  }

  async function drain(turn: { stream: ReadableStream<unknown>; done: Promise<{ runId: string; status: string }> }) {
    const reader = turn.stream.getReader();
    while (!(await reader.read()).done) {
      // the turn writes everything to the database; the stream is only read to the end
    }
    return turn.done;
  }

  /** Resumes a run from two "instances" at once (the host's own check may be a third) and waits for its end. */
  async function resumeToEnd(runId: string) {
    const { resumeRun } = await import("@/lib/runs/resume");
    const winners = (await Promise.all([resumeRun({ runId }), resumeRun({ runId })])).filter(Boolean);
    expect(winners.length).toBeLessThanOrEqual(1);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const run = await h.agent.db.agentRun.findUniqueOrThrow({ where: { id: runId } });
      if (!["running", "waiting_approval"].includes(run.status) || Date.now() > deadline) return run.status;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function pausedTurn(sessionId: string, command: string) {
    const { startChatTurn } = await host();
    const result = await drain(await startChatTurn({ user: h.member, sessionId, text: exec(command) }));
    expect(result.status).toBe("waiting_approval");
    const { listRunApprovals } = await import("@/lib/db/approvals");
    const approval = (await listRunApprovals({ runId: result.runId }))[0]!;
    return { runId: result.runId, approval };
  }

  it("while a run waits, the next message is refused (409, 'waiting for approval'); after approval only the approved call runs, once, and nothing of earlier or later messages runs again", async () => {
    const { agent, member, owner } = h;
    const { sessionId, dir } = await setup();
    const { startChatTurn } = await host();
    const first = await drain(await startChatTurn({ user: member, sessionId, text: exec(made("status")) }));
    expect(first.status).toBe("completed");
    expect(runs(dir, "status")).toBe(1);

    const { runId, approval } = await pausedTurn(sessionId, asked("approved"));
    await expect(startChatTurn({ user: member, sessionId, text: exec(made("later")) })).rejects.toMatchObject({
      code: "CONFLICT",
      message: expect.stringMatching(/waiting for an owner's approval/),
    });
    // Refused whole: neither the message nor a run of it was stored.
    expect(await agent.db.agentRun.count({ where: { sessionId } })).toBe(2);
    expect((await agent.messages.listMessages({ sessionId })).filter((r) => r.role === "user")).toHaveLength(2);
    // A line slipped into the transcript behind the lease's back (an older version queued it): never part of this run.
    const slipped = await agent.messages.appendMessage({
      sessionId,
      message: { role: "user", content: exec(made("slipped")) },
    });

    const service = await import("@/lib/approvals/service");
    const { resumeRun } = await import("@/lib/runs/resume");
    await service.decideApproval({ approvalId: approval.id, ownerId: owner.id, decision: "allow-once" });
    expect(await resumeToEnd(runId)).toBe("completed");
    expect(await resumeRun({ runId })).toBeNull();

    expect(runs(dir, "approved")).toBe(1);
    expect(runs(dir, "status")).toBe(1);
    expect(runs(dir, "later") + runs(dir, "slipped")).toBe(0);
    const calls = await agent.db.toolCall.findMany({ where: { sessionId } });
    expect(calls.map((c) => c.status).sort()).toEqual(["done", "done"]);
    expect(await agent.db.auditLog.count({ where: { action: "tool.call", sessionId, decision: "allow" } })).toBe(2);
    // The approved call's line stays where it was asked, before the slipped message.
    const rows = await agent.messages.listMessages({ sessionId });
    const line = rows.find((r) => r.role === "tool" && r.toolCallId === approval.callId)!;
    expect(line.seq).toBeLessThan(slipped.seq);
    expect(line.parts).toMatchObject({ status: "ok" });
    // The resumed model saw its own turn only: no message after its user message but its own.
    const run = await agent.db.agentRun.findUniqueOrThrow({ where: { id: runId } });
    expect(rows.filter((r) => r.seq > run.userSeq! && r.runId !== runId).map((r) => r.id)).toEqual([slipped.id]);
    expect(await agent.db.chatSession.findUniqueOrThrow({ where: { id: sessionId } })).toMatchObject({
      activeRunId: null,
    });
  });

  it("an expired request runs nothing (not the request, not an allow-listed command of an earlier turn); neither does a denied one", async () => {
    const { agent, member, owner } = h;
    const { sessionId, dir } = await setup();
    const { startChatTurn } = await host();
    await drain(await startChatTurn({ user: member, sessionId, text: exec(made("earlier")) }));
    const service = await import("@/lib/approvals/service");

    const expiring = await pausedTurn(sessionId, asked("expired"));
    await agent.db.approval.update({
      where: { id: expiring.approval.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    expect((await service.sweepExpiredApprovals()).map((a) => a.id)).toContain(expiring.approval.id);
    expect(await resumeToEnd(expiring.runId)).toBe("completed");
    expect(runs(dir, "expired")).toBe(0);
    const expiredLine = (await agent.messages.listMessages({ sessionId })).find(
      (r) => r.toolCallId === expiring.approval.callId && r.role === "tool",
    )!;
    expect(expiredLine.parts).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_EXPIRED" } });
    expect(
      (await agent.db.toolCall.findFirstOrThrow({ where: { sessionId, callId: expiring.approval.callId } })).status,
    ).toBe("expired");

    const denied = await pausedTurn(sessionId, asked("denied"));
    await service.decideApproval({ approvalId: denied.approval.id, ownerId: owner.id, decision: "deny", reason: "no" });
    expect(
      (await agent.db.toolCall.findFirstOrThrow({ where: { sessionId, callId: denied.approval.callId } })).decidedBy,
    ).toBe(owner.id);
    expect(await resumeToEnd(denied.runId)).toBe("completed");
    expect(runs(dir, "denied")).toBe(0);
    expect(runs(dir, "earlier")).toBe(1);
    expect(await agent.db.auditLog.count({ where: { action: "tool.call", sessionId, decision: "allow" } })).toBe(1);
  });

  it("a call id is an idempotency key: the same id twice (one step, or a later step) runs once; the repeat is refused", async () => {
    const { agent, member } = h;
    const { sessionId, dir } = await setup();
    const input = JSON.stringify({ command: made("dup") });
    const model = scriptedModel([
      [toolCallPart("dup", "exec", input), toolCallPart("dup", "exec", input), finishPart("tool-calls")],
      [toolCallPart("dup", "exec", input), finishPart("tool-calls")],
      [...textParts("done"), finishPart("stop")],
    ]);
    const { result, transcript } = await agent.turn({ sessionId, user: member, text: "go", model });
    expect(result.status).toBe("completed");
    expect(runs(dir, "dup")).toBe(1);
    const results = transcript
      .filter((r) => r.role === "tool" && r.toolCallId === "dup")
      .map((r) => r.parts as { status: string; output: { message?: string } });
    expect(results.map((r) => r.status)).toEqual(["ok", "denied", "denied"]);
    expect(results[1]!.output.message).toMatch(/already used/);
    expect(await agent.db.toolCall.count({ where: { sessionId, callId: "dup" } })).toBe(1);
  });

  it("one transaction per outcome: when the audit row cannot be written, neither is the transcript line, the call's state or the event", async () => {
    const { agent, member } = h;
    const { sessionId, dir } = await setup();
    // A real database failure in the middle of the outcome (after the call state, the message and the event).
    if (kind === "postgres") {
      await agent.db.$executeRawUnsafe(
        `CREATE OR REPLACE FUNCTION toolgate_boom() RETURNS trigger AS $$ BEGIN IF NEW."callId" = 'boom' THEN RAISE EXCEPTION 'audit refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await agent.db.$executeRawUnsafe(
        `CREATE TRIGGER toolgate_boom BEFORE INSERT ON "AuditLog" FOR EACH ROW EXECUTE FUNCTION toolgate_boom()`,
      );
    } else {
      await agent.db.$executeRawUnsafe(
        `CREATE TRIGGER toolgate_boom BEFORE INSERT ON "AuditLog" WHEN NEW."callId" = 'boom' BEGIN SELECT RAISE(ABORT, 'audit refused'); END`,
      );
    }
    try {
      const events = await agent.db.eventLog.count();
      const model = scriptedModel([
        [toolCallPart("boom", "exec", JSON.stringify({ command: made("boom") })), finishPart("tool-calls")],
      ]);
      const { result, transcript } = await agent.turn({ sessionId, user: member, text: "go", model });
      expect(result.status).toBe("failed");
      expect(runs(dir, "boom")).toBe(0);
      expect(transcript.filter((r) => r.toolCallId === "boom")).toEqual([]);
      expect(await agent.db.toolCall.count({ where: { sessionId, callId: "boom" } })).toBe(0);
      expect(await agent.db.eventLog.count({ where: { type: "call.updated", sessionId } })).toBe(0);
      // The run's own end (failed) is an outcome too: its event is there.
      expect(await agent.db.eventLog.count()).toBeGreaterThan(events);
    } finally {
      await agent.db.$executeRawUnsafe(
        `DROP TRIGGER IF EXISTS toolgate_boom${kind === "postgres" ? ` ON "AuditLog"` : ""}`,
      );
    }
  });

  it("a run taken over mid-turn (its lease now another instance's) writes and runs nothing more: the next step is dropped", async () => {
    const { agent, member } = h;
    const { sessionId, dir } = await setup();
    const first = scriptedModel([
      [toolCallPart("c-before", "exec", JSON.stringify({ command: made("before") })), finishPart("tool-calls")],
    ]);
    const late = scriptedModel([
      [toolCallPart("c-late", "exec", JSON.stringify({ command: made("late") })), finishPart("tool-calls")],
    ]);
    const { MockLanguageModelV3 } = await import("ai/test");
    let step = 0;
    const model = new MockLanguageModelV3({
      doStream: async (options) => {
        step += 1;
        if (step === 1) return first.doStream(options);
        // While the model thinks about step 2, another instance takes the run over (what a lapsed lease allows).
        await agent.db.agentRun.updateMany({
          where: { sessionId, status: "running" },
          data: { leaseOwner: "another-instance" },
        });
        return late.doStream(options);
      },
    });
    const { result, transcript } = await agent.turn({ sessionId, user: member, text: "go", model });
    expect(result.status).toBe("aborted");
    expect(runs(dir, "before")).toBe(1);
    expect(runs(dir, "late")).toBe(0);
    expect(JSON.stringify(transcript.map((r) => r.parts))).not.toContain("c-late");
    expect(await agent.db.toolCall.count({ where: { sessionId, callId: "c-late" } })).toBe(0);
    // The run is left to its new holder: not ended by the instance that lost it.
    expect(
      (await agent.db.agentRun.findFirstOrThrow({ where: { sessionId }, orderBy: { createdAt: "desc" } })).status,
    ).toBe("running");
    await agent.db.agentRun.updateMany({ where: { sessionId, status: "running" }, data: { status: "failed" } });
    await agent.db.chatSession.update({ where: { id: sessionId }, data: { activeRunId: null } });
  });

  it("Stop of a paused run: its request leaves the inbox, the card says stopped, the session is free, and a late approval runs nothing", async () => {
    const { agent, member, owner } = h;
    const { sessionId, dir } = await setup();
    const { runId, approval } = await pausedTurn(sessionId, asked("stopped"));
    const { stopChatTurn, startChatTurn } = await host();
    expect(await stopChatTurn({ user: member, sessionId })).toEqual({ stopped: true });
    expect((await agent.db.agentRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe("aborted");
    expect(await agent.db.approval.findUniqueOrThrow({ where: { id: approval.id } })).toMatchObject({
      status: "expired",
      resolveReason: expect.stringMatching(/stopped/),
    });
    expect(await agent.db.toolCall.findFirstOrThrow({ where: { sessionId, callId: approval.callId } })).toMatchObject({
      status: "stopped",
      decidedBy: member.id,
    });
    const service = await import("@/lib/approvals/service");
    await expect(
      service.decideApproval({ approvalId: approval.id, ownerId: owner.id, decision: "allow-once" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const { resumeRun } = await import("@/lib/runs/resume");
    expect(await resumeRun({ runId })).toBeNull();
    expect(runs(dir, "stopped")).toBe(0);
    const { getChatSession } = await import("@/lib/runs/sessions");
    const view = await getChatSession({ user: member, sessionId });
    expect(JSON.stringify(view.uiMessages)).toContain("data-tool_stopped");
    expect(view.activeRun).toBeNull();
    expect((await drain(await startChatTurn({ user: member, sessionId, text: "hello again" }))).status).toBe(
      "completed",
    );
  });

  it("an owner judges a request in context: the conversation before it, and a read-only view of the session that is audited", async () => {
    const { agent, member, owner } = h;
    const { sessionId } = await setup();
    const { approval } = await pausedTurn(sessionId, asked("context"));
    const { getApprovalView } = await import("@/lib/approvals/views");
    const seen = await getApprovalView({ user: owner, approvalId: approval.id });
    expect(seen.context?.map((m) => m.role)).toEqual(["user"]);
    expect(seen.context?.[0]?.content).toContain("context.XXXXXX");
    // The requester sees the request, not an owner's view of the conversation.
    expect((await getApprovalView({ user: member, approvalId: approval.id })).context).toBeUndefined();
    const { reviewSession } = await import("@/lib/runs/sessions");
    await expect(reviewSession({ user: member, sessionId })).rejects.toMatchObject({ code: "NOT_FOUND" });
    const review = await reviewSession({ user: owner, sessionId });
    expect(JSON.stringify(review.uiMessages)).toContain("data-approval_pending");
    expect(await agent.db.auditLog.count({ where: { action: "session.reviewed", sessionId, actorId: owner.id } })).toBe(
      1,
    );
    const { stopChatTurn } = await host();
    await stopChatTurn({ user: member, sessionId });
  });

  it("a run whose instance died (its lease lapsed) is failed by another: a line for the unfinished call, a notice, the session released", async () => {
    const { agent, member } = h;
    const { sessionId } = await setup();
    const { beginTurn } = await import("@/lib/runs/engine");
    const { runId } = await beginTurn({ sessionId, text: exec("sleep 30") });
    // As the dead instance left it: someone else's lease, already lapsed, and a call it had started.
    await agent.db.agentRun.update({
      where: { id: runId },
      data: { leaseOwner: "elsewhere:1:dead", leaseExpiresAt: new Date(Date.now() - 1000) },
    });
    await agent.messages.appendMessage({
      sessionId,
      message: {
        role: "assistant",
        content: "",
        parts: { toolCalls: [{ toolCallId: "c-dead", toolName: "exec", input: { command: "sleep 30" } }] },
        runId,
      },
    });
    await agent.db.toolCall.create({
      data: {
        sessionId,
        runId,
        callId: "c-dead",
        toolName: "exec",
        argsHash: "x",
        status: "running",
        startedAt: new Date(),
      },
    });
    const { failAbandonedRuns } = await import("@/lib/runs/recovery");
    const [a, b] = await Promise.all([failAbandonedRuns(), failAbandonedRuns()]);
    expect([...a, ...b]).toEqual([runId]);
    expect((await agent.db.agentRun.findUniqueOrThrow({ where: { id: runId } })).status).toBe("failed");
    const rows = await agent.messages.listMessages({ sessionId });
    // The first line is setup()'s mode switch marker.
    expect(rows.map((r) => r.role)).toEqual(["system", "user", "assistant", "tool", "system"]);
    expect(rows[3]).toMatchObject({ toolCallId: "c-dead", parts: { output: { error_code: "INTERRUPTED" } } });
    expect(rows[4]!.content).toMatch(/interrupted/);
    expect((await agent.db.toolCall.findFirstOrThrow({ where: { callId: "c-dead" } })).status).toBe("failed");
    expect(await agent.db.auditLog.count({ where: { action: "run.abandoned", sessionId } })).toBe(1);
    const { findActiveRun } = await import("@/lib/db/runs");
    expect(await findActiveRun({ sessionId })).toBeNull();
    void member;
  });

  it.skipIf(kind !== "postgres")(
    "a lost LISTEN connection is logged, reconnects, and events committed meanwhile still arrive",
    async () => {
      const { addLogSink } = await import("@/lib/log");
      const seen: string[] = [];
      const remove = addLogSink((r) => seen.push(r.event));
      try {
        resetEventBus();
        const bus = await import("@/lib/events/bus");
        const got: string[] = [];
        const unsubscribe = await bus.subscribeEvents((e) => got.push(e.type));
        const { listListenerPids } = await import("@/lib/db/events");
        const pids = await listListenerPids();
        expect(pids.length).toBeGreaterThan(0);
        for (const pid of pids) await h.agent.db.$executeRawUnsafe(`SELECT pg_terminate_backend(${pid})`);
        const deadline = Date.now() + 10_000;
        while (!seen.includes("event_listen_reconnected") && Date.now() < deadline)
          await new Promise((r) => setTimeout(r, 50));
        expect(seen).toContain("event_listen_lost");
        expect(seen).toContain("event_listen_reconnected");
        // Written by "another instance" (straight into the database, with its NOTIFY): heard through the new connection.
        const { insertEvent } = await import("@/lib/db/events");
        await insertEvent({ type: "test.after_reconnect", scope: "session", payload: {} });
        while (!got.includes("test.after_reconnect") && Date.now() < deadline + 5_000)
          await new Promise((r) => setTimeout(r, 50));
        expect(got).toContain("test.after_reconnect");
        unsubscribe();
      } finally {
        remove();
      }
    },
  );
});
