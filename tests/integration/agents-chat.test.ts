// Issue 32, chat as an agent, on a real database (SQLite, and PostgreSQL when configured): the session's agent is
// chosen at creation (usableBy decides: 403 otherwise, 404 for an unknown one) and fixed; a turn in it has the
// agent's persona in the prompt (the offline model says it back), the agent layer's tool rules (a tool another
// agent may use is denied with layer "agent"), and every audit row of a call names the agent.
import { beforeAll, describe, expect, it } from "vitest";
import { dbTargets, type Agent, type AgentUser, useAgentOnDatabase } from "../support/agent-harness";

const POLICY = {
  agents: {
    clockless: {
      name: "Clockless Clara",
      persona: "You are Clara, a careful librarian who never tells the time.\nAnswer in one sentence.",
      model: "anthropic/claude-nonexistent",
      tools: { deny: ["current_time"] },
      usableBy: { roles: ["member"] },
      starters: ["Find me a book about tides"],
    },
    timekeeper: {
      name: "Timekeeper",
      persona: "You are a ship's clock.",
      model: "offline",
      usableBy: { roles: ["member"] },
    },
    ownersOnly: { name: "Owners only", usableBy: { roles: ["owner"] } },
    adminsOnly: { name: "No usableBy" },
  },
};

describe.each(dbTargets())("chat as an agent (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let agent: Agent;
  let member: AgentUser;
  let owner: AgentUser;
  beforeAll(async () => {
    ({ agent, member, owner } = h);
    await agent.setPolicy(POLICY);
  });

  const sessionsLib = () => import("@/lib/runs/sessions");
  const toolAudits = (sessionId: string) =>
    agent.db.auditLog.findMany({ where: { sessionId, action: "tool.call" }, orderBy: { seq: "asc" } });

  it("lists only the agents usableBy names for this user", async () => {
    const { listUsableAgents } = await import("@/lib/runs/agents");
    expect((await listUsableAgents({ user: member })).map((a) => a.id)).toEqual(["clockless", "timekeeper"]);
    expect((await listUsableAgents({ user: owner })).map((a) => a.id)).toEqual([
      "clockless",
      "ownersOnly",
      "timekeeper",
    ]);
    const clara = (await listUsableAgents({ user: member }))[0]!;
    expect(clara).toEqual({
      id: "clockless",
      name: "Clockless Clara",
      description: "You are Clara, a careful librarian who never tells the time.",
      model: "anthropic/claude-nonexistent",
      starters: ["Find me a book about tides"],
    });
  });

  it("a member is refused an agent they may not use (403) and an unknown one (404); nothing is created, the refusal is audited", async () => {
    const { createChatSession } = await sessionsLib();
    const before = await agent.db.chatSession.count({ where: { ownerId: member.id } });
    for (const [agentId, code] of [
      ["ownersOnly", "FORBIDDEN"],
      ["adminsOnly", "FORBIDDEN"],
      ["nope", "NOT_FOUND"],
      ["__proto__", "NOT_FOUND"],
      ["toString", "NOT_FOUND"],
    ] as const) {
      await expect(createChatSession({ user: member, agentId })).rejects.toMatchObject({
        code,
        message: expect.stringContaining(agentId),
      });
    }
    expect(await agent.db.chatSession.count({ where: { ownerId: member.id } })).toBe(before);
    const refusals = await agent.db.auditLog.findMany({
      where: { actorId: member.id, action: "session.agent_refused" },
    });
    expect(refusals.map((r) => (r.details as { agentId: string }).agentId).sort()).toEqual([
      "__proto__",
      "adminsOnly",
      "nope",
      "ownersOnly",
      "toString",
    ]);
  });

  it("the persona is in the prompt and the answer; the agent's deny of a tool the other agent may use is enforced with layer agent; the audit names the agent", async () => {
    const { createChatSession, getChatSession } = await sessionsLib();
    const clara = await createChatSession({ user: member, agentId: "clockless" });
    expect(clara.agentId).toBe("clockless");
    const shown = await getChatSession({ user: member, sessionId: clara.id });
    expect(shown.agentId).toBe("clockless");
    expect(shown.agent).toMatchObject({
      id: "clockless",
      name: "Clockless Clara",
      starters: ["Find me a book about tides"],
      available: true,
    });

    const who = await agent.turn({ sessionId: clara.id, user: member, text: "who are you?" });
    expect(who.transcript.at(-1)!.content).toMatch(
      /^I am Clockless Clara, .*careful librarian who never tells the time\.\nAnswer in one sentence\./s,
    );

    const denied = await agent.turn({ sessionId: clara.id, user: member, text: "/tool current_time {}" });
    const chunk = denied.chunks.find((c) => c.type === "data-tool_denied") as
      { data: { toolName: string; message: string } } | undefined;
    expect(chunk?.data.toolName).toBe("current_time");
    const [row] = await toolAudits(clara.id);
    expect(row).toMatchObject({ toolName: "current_time", decision: "deny", layer: "agent" });
    // The agent's model names a provider that is not configured: the configured one runs, and the audit says so.
    expect(row!.details).toMatchObject({
      agentId: "clockless",
      reason: expect.stringMatching(/agents\.clockless\.tools: deny: current_time/),
      modelNote: 'agent model "anthropic/claude-nonexistent" is not configured; using offline/offline',
    });

    // The same call as the other agent runs: the deny is the agent's, not the member's.
    const keeper = await createChatSession({ user: member, agentId: "timekeeper" });
    await agent.turn({ sessionId: keeper.id, user: member, text: "/tool current_time {}" });
    const [ran] = await toolAudits(keeper.id);
    expect(ran).toMatchObject({ toolName: "current_time", decision: "allow" });
    expect(ran!.details).toMatchObject({ agentId: "timekeeper" });
    expect((ran!.details as Record<string, unknown>).modelNote).toBeUndefined();
    expect(
      (await agent.turn({ sessionId: keeper.id, user: member, text: "who are you" })).transcript.at(-1)!.content,
    ).toMatch(/^I am Timekeeper, .*ship's clock/);

    // Without an agent: no persona, and the call runs.
    const plain = await createChatSession({ user: member });
    expect(
      (await agent.turn({ sessionId: plain.id, user: member, text: "who are you" })).transcript.at(-1)!.content,
    ).toMatch(/no agent persona/);
  });

  it("an agent taken away after the chat started gives the next turn no tools (fail closed), with the reason", async () => {
    const { createChatSession } = await sessionsLib();
    const s = await createChatSession({ user: member, agentId: "timekeeper" });
    await agent.setPolicy({
      agents: { ...POLICY.agents, timekeeper: { ...POLICY.agents.timekeeper, usableBy: { roles: ["owner"] } } },
    });
    try {
      const { chunks } = await agent.turn({ sessionId: s.id, user: member, text: "/tool current_time {}" });
      const [row] = await toolAudits(s.id);
      expect(row).toMatchObject({ toolName: "current_time", decision: "deny", layer: "policy" });
      expect(row!.details).toMatchObject({ agentId: "timekeeper" });
      const chunk = chunks.find((c) => c.type === "data-tool_denied") as { data: { message: string } } | undefined;
      expect(chunk?.data.message).toMatch(/may no longer use the agent "timekeeper"/);
    } finally {
      await agent.setPolicy(POLICY);
    }
  });

  it("the agent is fixed at creation: the UI's New chat does not reopen an untouched agent chat as a plain one, nor the reverse", async () => {
    const { openNewChatSession } = await sessionsLib();
    const asClara = await openNewChatSession({ user: owner, agentId: "clockless" });
    const plain = await openNewChatSession({ user: owner });
    expect(plain.id).not.toBe(asClara.id);
    expect(plain.agentId).toBeNull();
    expect((await openNewChatSession({ user: owner, agentId: "clockless" })).id).toBe(asClara.id);
    await expect(openNewChatSession({ user: member, agentId: "ownersOnly" })).rejects.toMatchObject({
      code: "FORBIDDEN",
    });
  });
});
