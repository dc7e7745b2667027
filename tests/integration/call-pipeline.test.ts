// The call pipeline as a service for a client with no chat run loop (lib/runs/call-pipeline.ts, callTool), on a real
// database: an allowed call runs and is recorded and audited, a denied call never runs, a call that needs an owner
// creates an approval and runs once after the owner approves it. The calls are recorded in the client's own session.
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { dbTargets, type Agent, type AgentUser, useAgentOnDatabase } from "../support/agent-harness";

describe.each(dbTargets())("call pipeline for an outside client (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let agent: Agent;
  let member: AgentUser;
  let owner: AgentUser;
  let pipeline: typeof import("@/lib/runs/call-pipeline");
  let approvals: typeof import("@/lib/approvals/service");
  let audit: typeof import("@/lib/db/audit");
  beforeAll(async () => {
    ({ agent, member, owner } = h);
    pipeline = await import("@/lib/runs/call-pipeline");
    approvals = await import("@/lib/approvals/service");
    audit = await import("@/lib/db/audit");
  });

  const client = { key: "token:test", name: "ci-bot", mode: "chat_safe" };
  let n = 0;
  const call = (toolName: string, input: unknown) => ({ toolCallId: `ext_${++n}`, toolName, input });
  const callTool = (toolName: string, input: unknown, approvalWaitMs = 100) =>
    pipeline.callTool({
      user: member,
      client,
      call: call(toolName, input),
      workspaceRoot: agent.workspaceRoot,
      approvalWaitMs,
    });
  const callRow = (sessionId: string, callId: string) =>
    agent.db.toolCall.findUniqueOrThrow({ where: { sessionId_callId: { sessionId, callId } } });

  it("an allowed call runs, and is recorded and audited in the client's session, which is not listed with the chats", async () => {
    await agent.setPolicy({});
    const result = await callTool("current_time", {});
    expect(result).toMatchObject({ status: "ok" });
    expect(JSON.stringify(result.output)).toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(await callRow(result.sessionId, result.callId)).toMatchObject({ status: "done", toolName: "current_time" });
    const rows = await agent.db.auditLog.findMany({ where: { sessionId: result.sessionId, callId: result.callId } });
    expect(rows).toEqual([expect.objectContaining({ action: "tool.call", decision: "allow", actorId: member.id })]);
    expect(rows[0]!.details).toMatchObject({ provider: "external", model: "ci-bot" });
    expect((await agent.db.agentRun.findUniqueOrThrow({ where: { id: result.runId } })).status).toBe("completed");
    // The run ends with the call's result, in its transaction: the call's and the run's events in that order.
    const told = await agent.db.eventLog.findMany({ where: { sessionId: result.sessionId }, orderBy: { seq: "asc" } });
    expect(told.map((e) => [e.type, (e.payload as { status?: string }).status])).toEqual([
      ["call.updated", "running"],
      ["call.updated", "done"],
      ["run.updated", "completed"],
    ]);
    const session = await agent.db.chatSession.findUniqueOrThrow({ where: { id: result.sessionId } });
    expect(session).toMatchObject({ ownerId: member.id, clientKey: "token:test", activeRunId: null });
    expect((await agent.sessions.listOwnedSessions({ ownerId: member.id })).map((s) => s.id)).not.toContain(session.id);
    expect(await audit.verifyAuditChain()).toMatchObject({ ok: true });
    // The same client again: the same session, a run of its own.
    const again = await callTool("current_time", {});
    expect(again.sessionId).toBe(result.sessionId);
    expect(again.runId).not.toBe(result.runId);
  });

  it("a denied call never runs: nothing written in the workspace, the call denied and audited", async () => {
    await agent.setPolicy({});
    const result = await callTool("write", { path: "from-outside.txt", content: "should not exist" });
    expect(result).toMatchObject({ status: "denied", output: { ok: false } });
    expect(fs.existsSync(path.join(agent.workspaceRoot, member.id, "from-outside.txt"))).toBe(false);
    expect(await callRow(result.sessionId, result.callId)).toMatchObject({ status: "denied", startedAt: null });
    expect(await agent.db.auditLog.findMany({ where: { callId: result.callId } })).toEqual([
      expect.objectContaining({ decision: "deny" }),
    ]);
  });

  it("overlapping calls of one client run side by side (no claim on the session)", async () => {
    await agent.setPolicy({});
    const results = await Promise.all(Array.from({ length: 4 }, () => callTool("current_time", {})));
    expect(results.map((r) => r.status)).toEqual(["ok", "ok", "ok", "ok"]);
  });

  it("a call that needs an owner creates an approval, waits, and runs once after the owner approves it", async () => {
    await agent.setPolicy({ askRules: ["current_time"] });
    const pending = callTool("current_time", {}, 30_000);
    let approval: { id: string } | null = null;
    await vi.waitFor(
      async () => {
        approval = await agent.db.approval.findFirst({
          where: { status: "pending", toolName: "current_time", requesterId: member.id },
        });
        expect(approval).not.toBeNull();
      },
      { timeout: 10_000 },
    );
    const { id } = approval!;
    expect((await agent.db.approval.findUniqueOrThrow({ where: { id } })).runId).toBeTruthy();
    await approvals.decideApproval({ approvalId: id, ownerId: owner.id, decision: "allow-once" });
    const result = await pending;
    expect(result).toMatchObject({ status: "ok", approvalId: id });
    expect(await callRow(result.sessionId, result.callId)).toMatchObject({ status: "done", approvalId: id });
    expect((await agent.db.approval.findUniqueOrThrow({ where: { id } })).consumedAt).toBeInstanceOf(Date);
    const decisions = (
      await agent.db.auditLog.findMany({ where: { callId: result.callId }, orderBy: { seq: "asc" } })
    ).map((r) => r.decision);
    expect(decisions.filter((d) => d === "allow")).toHaveLength(1);
    expect(decisions).toContain("ask");
    // The pending line was settled in place: one line for the call.
    expect(await agent.db.message.count({ where: { sessionId: result.sessionId, toolCallId: result.callId } })).toBe(1);
  });

  it("a call nobody decides in time answers pending and never runs later; a denial is final", async () => {
    await agent.setPolicy({ askRules: ["current_time"] });
    const late = await callTool("current_time", {}, 200);
    expect(late).toMatchObject({ status: "pending" });
    expect((await agent.db.agentRun.findUniqueOrThrow({ where: { id: late.runId } })).status).toBe("completed");
    await approvals.decideApproval({ approvalId: late.approvalId!, ownerId: owner.id, decision: "allow-once" });
    await new Promise((r) => setTimeout(r, 1_500));
    expect((await callRow(late.sessionId, late.callId)).status).not.toBe("running");
    expect(await agent.db.auditLog.count({ where: { callId: late.callId, decision: "allow" } })).toBe(0);

    const denied = pipeline.callTool({
      user: member,
      client,
      call: call("current_time", {}),
      workspaceRoot: agent.workspaceRoot,
      approvalWaitMs: 30_000,
    });
    let id = "";
    await vi.waitFor(
      async () => {
        const row = await agent.db.approval.findFirst({
          where: { status: "pending", toolName: "current_time", requesterId: member.id, id: { not: late.approvalId! } },
        });
        expect(row).not.toBeNull();
        id = row!.id;
      },
      { timeout: 10_000 },
    );
    await approvals.decideApproval({ approvalId: id, ownerId: owner.id, decision: "deny", reason: "not now" });
    const result = await denied;
    expect(result).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_DENIED" } });
    expect((await callRow(result.sessionId, result.callId)).status).toBe("denied");
  });
});
