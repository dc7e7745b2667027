// Subagents end to end on a real database (SQLite, and PostgreSQL when configured): sessions_spawn runs a child
// through the real loop in a child session; depth limits, the default deny list, restrictions inherited from
// the parent, and the child's denials and approvals in its own transcript and the audit log. The model is the
// offline model or a scripted one shared by parent and child; everything else is the real code.
import { beforeAll, describe, expect, it } from "vitest";
import {
  dbTargets,
  finishPart,
  scriptedModel,
  seenBy,
  toolCallPart,
  type Agent,
  type AgentUser,
  useAgentOnDatabase,
} from "../support/agent-harness";

const spawnLine = (task: string) => `/tool sessions_spawn ${JSON.stringify({ task })}`;
type SpawnOutput = { ok: boolean; sessionId: string; status: string; answer: string | null };

describe.each(dbTargets())("subagents (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let agent: Agent;
  let member: AgentUser;
  let owner: AgentUser;
  beforeAll(() => void ({ agent, member, owner } = h));

  const toolRows = (transcript: Array<{ role: string; toolName: string | null; parts: unknown }>, name: string) =>
    transcript
      .filter((m) => m.role === "tool" && m.toolName === name)
      .map((m) => m.parts as { status: string; output: Record<string, unknown> });
  const spawnOutput = (transcript: Array<{ role: string; toolName: string | null; parts: unknown }>) =>
    toolRows(transcript, "sessions_spawn")[0]!.output as unknown as SpawnOutput;
  const audits = (sessionId: string) => agent.db.auditLog.findMany({ where: { sessionId }, orderBy: { seq: "asc" } });

  it("runs the task in a linked child session and returns the child's answer; the child is hidden from the session list", async () => {
    await agent.setPolicy({});
    const parent = await agent.session(member.id);
    const { transcript } = await agent.turn({ sessionId: parent.id, user: member, text: spawnLine("what time is it") });
    const out = spawnOutput(transcript);
    expect(out).toMatchObject({ ok: true, status: "completed" });
    expect(out.answer).toMatch(/current_time/);
    const child = await agent.db.chatSession.findUniqueOrThrow({ where: { id: out.sessionId } });
    expect(child).toMatchObject({ parentId: parent.id, depth: 1, ownerId: member.id, mode: "chat_safe" });
    const childMessages = await agent.messages.listMessages({ sessionId: child.id });
    expect(childMessages[0]).toMatchObject({ role: "user", content: "what time is it" });
    expect(toolRows(childMessages, "current_time")[0]?.status).toBe("ok");
    const listed = await agent.sessions.listOwnedSessions({ ownerId: member.id });
    expect(listed.map((s) => s.id)).toContain(parent.id);
    expect(listed.map((s) => s.id)).not.toContain(child.id);
  });

  it("subagents lists this session's children only, and refuses to stop another session's", async () => {
    await agent.setPolicy({});
    const parent = await agent.session(member.id);
    const first = await agent.turn({ sessionId: parent.id, user: member, text: spawnLine("what time is it") });
    const childId = spawnOutput(first.transcript).sessionId;
    const other = await agent.session(member.id);
    const { transcript } = await agent.turn({
      sessionId: parent.id,
      user: member,
      text: `/tool subagents {"action":"list"}\n/tool subagents {"action":"stop","sessionId":"${other.id}"}`,
    });
    const [list, stop] = toolRows(transcript, "subagents");
    expect(list).toMatchObject({
      status: "ok",
      output: { subagents: [expect.objectContaining({ sessionId: childId, depth: 1, running: false })] },
    });
    expect((list!.output as { subagents: unknown[] }).subagents).toHaveLength(1);
    expect(stop).toMatchObject({ status: "error", output: { error_code: "NOT_FOUND" } });
  });

  it("maxSpawnDepth 1 (default): a depth-1 child cannot spawn, denied by the subagent layer and audited in the child", async () => {
    await agent.setPolicy({});
    const parent = await agent.session(member.id);
    const { transcript } = await agent.turn({
      sessionId: parent.id,
      user: member,
      text: spawnLine(spawnLine("what time is it")),
    });
    const out = spawnOutput(transcript);
    const childMessages = await agent.messages.listMessages({ sessionId: out.sessionId });
    const denied = toolRows(childMessages, "sessions_spawn")[0]!;
    expect(denied.status).toBe("denied");
    expect(denied.output).toMatchObject({ error_code: "POLICY_DENIED", tool_name: "sessions_spawn" });
    expect(out.answer).toMatch(/sessions_spawn.*not allowed/);
    const childAudit = (await audits(out.sessionId)).filter(
      (a) => a.action === "tool.call" && a.toolName === "sessions_spawn",
    );
    expect(childAudit).toEqual([expect.objectContaining({ decision: "deny", layer: "subagent" })]);
    expect(await agent.db.chatSession.count({ where: { parentId: out.sessionId } })).toBe(0);
  });

  it("maxSpawnDepth 2 lets a depth-1 child spawn once more, and the depth-2 grandchild cannot", async () => {
    await agent.setPolicy({ subagents: { maxSpawnDepth: 2, tools: { alsoAllow: ["sessions_spawn"] } } });
    const parent = await agent.session(member.id);
    const { transcript } = await agent.turn({
      sessionId: parent.id,
      user: member,
      text: spawnLine(spawnLine(spawnLine("what time is it"))),
    });
    const child = spawnOutput(transcript);
    const childMessages = await agent.messages.listMessages({ sessionId: child.sessionId });
    const grandchild = spawnOutput(childMessages);
    expect(grandchild.status).toBe("completed");
    expect(await agent.db.chatSession.findUniqueOrThrow({ where: { id: grandchild.sessionId } })).toMatchObject({
      parentId: child.sessionId,
      depth: 2,
    });
    const grandMessages = await agent.messages.listMessages({ sessionId: grandchild.sessionId });
    expect(toolRows(grandMessages, "sessions_spawn")[0]).toMatchObject({
      status: "denied",
      output: { error_code: "POLICY_DENIED" },
    });
    const denial = (await audits(grandchild.sessionId)).find(
      (a) => a.action === "tool.call" && a.toolName === "sessions_spawn",
    );
    expect(denial).toMatchObject({ decision: "deny", layer: "subagent", rule: "maxSpawnDepth: 2" });
  });

  it("L12/L13 the child (a leaf at the default maxSpawnDepth) loses the sessions tools, keeps memory and current_time", async () => {
    await agent.setPolicy({});
    const parent = await agent.session(member.id);
    const model = scriptedModel([
      [toolCallPart("call_spawn", "sessions_spawn", JSON.stringify({ task: "look around" })), finishPart("tool-calls")],
    ]);
    await agent.turn({ sessionId: parent.id, user: member, text: "spawn", model });
    const parentTools = seenBy(model.doStreamCalls[0]!).tools;
    const childTools = seenBy(model.doStreamCalls[1]!).tools;
    for (const name of ["sessions_list", "sessions_history", "sessions_spawn"]) {
      expect(parentTools).toContain(name);
      expect(childTools).not.toContain(name);
    }
    for (const name of ["memory_search", "memory_get", "current_time"]) expect(childTools).toContain(name);
  });

  it("a tool denied to the parent by a sender rule is denied to the child even when subagents.tools allows it", async () => {
    await agent.setPolicy({
      senders: { [member.id]: { deny: ["current_time"] } },
      subagents: { tools: { allow: ["current_time", "sessions_spawn"] } },
    });
    const parent = await agent.session(member.id);
    const { transcript } = await agent.turn({
      sessionId: parent.id,
      user: member,
      text: spawnLine("/tool current_time {}"),
    });
    const out = spawnOutput(transcript);
    const childMessages = await agent.messages.listMessages({ sessionId: out.sessionId });
    expect(toolRows(childMessages, "current_time")[0]).toMatchObject({
      status: "denied",
      output: { error_code: "POLICY_DENIED" },
    });
    const audit = (await audits(out.sessionId)).find((a) => a.action === "tool.call" && a.toolName === "current_time");
    expect(audit).toMatchObject({ decision: "deny" });
  });

  it("a child never has more than its parent: a coding child of a chat_safe parent cannot exec (layer parent)", async () => {
    await agent.setPolicy({});
    // The parent was switched back to chat_safe after spawning: the child's own mode would allow exec.
    const parent = await agent.session(owner.id, "chat_safe");
    const child = await agent.sessions.createSession({
      ownerId: owner.id,
      mode: "coding",
      parentId: parent.id,
      depth: 1,
    });
    const { transcript } = await agent.turn({
      sessionId: child.id,
      user: owner,
      text: '/tool exec {"command":"echo should-not-run"}',
    });
    expect(toolRows(transcript, "exec")[0]).toMatchObject({
      status: "denied",
      output: { error_code: "POLICY_DENIED", message: expect.stringMatching(/parent/) },
    });
    expect((await audits(child.id)).find((a) => a.toolName === "exec")).toMatchObject({
      decision: "deny",
      layer: "parent",
      rule: "parent's allowed tools",
    });
    // Control: the same child without a parent link runs exec's gate past the policy layers.
    const orphan = await agent.sessions.createSession({ ownerId: owner.id, mode: "coding", depth: 1 });
    const alone = await agent.turn({
      sessionId: orphan.id,
      user: owner,
      text: '/tool exec {"command":"echo should-not-run"}',
    });
    expect((await audits(orphan.id)).find((a) => a.toolName === "exec")?.layer).not.toBe("parent");
    expect(alone.result.status).not.toBe("failed");
  });

  it("a child's approval request and its denial are in the child's transcript and the audit log", async () => {
    await agent.setPolicy({ askRules: ["current_time"] });
    const parent = await agent.session(member.id);
    const { transcript } = await agent.turn({ sessionId: parent.id, user: member, text: spawnLine("what time is it") });
    const out = spawnOutput(transcript);
    expect(out).toMatchObject({ ok: false, status: "waiting_approval", answer: null });
    const pending = toolRows(await agent.messages.listMessages({ sessionId: out.sessionId }), "current_time")[0]!;
    expect(pending.status).toBe("pending");
    const requested = (await audits(out.sessionId)).find((a) => a.action === "approval.requested");
    expect(requested).toMatchObject({ toolName: "current_time", decision: "ask" });

    const { decideApproval } = await import("@/lib/approvals/service");
    const { resumeRun } = await import("@/lib/runs/resume");
    const approvalId = (pending.output as { approvalId: string }).approvalId;
    await decideApproval({ approvalId, ownerId: owner.id, decision: "deny", reason: "not now" });
    const run = await agent.db.agentRun.findFirstOrThrow({ where: { sessionId: out.sessionId } });
    await resumeRun({ runId: run.id, model: { model: agent.createOfflineModel(), info: { provider: "offline" } } });
    const after = toolRows(await agent.messages.listMessages({ sessionId: out.sessionId }), "current_time")[0]!;
    expect(after).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_DENIED" } });
    const denied = (await audits(out.sessionId)).filter(
      (a) => a.action === "tool.call" && a.toolName === "current_time",
    );
    expect(denied.at(-1)).toMatchObject({ decision: "deny", layer: "approval" });
  });
});
