// Stopping and disconnecting, through the real HTTP host of a turn (lib/runs/host.ts) on a real database:
// Stop aborts a running `exec sleep 30` quickly and the transcript and run record it; a client that goes
// away mid-stream does not stop the turn, and every message is still persisted in order.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { UIMessageChunk } from "ai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { dbTargets, loadAgent, type Agent } from "../support/agent-harness";

async function readUntil(
  reader: ReadableStreamDefaultReader<UIMessageChunk>,
  seen: UIMessageChunk[],
  stop: (c: UIMessageChunk) => boolean,
) {
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    seen.push(value);
    if (stop(value)) return;
  }
}

describe.each(dbTargets())("stop and disconnect (%s)", (_kind, make) => {
  let agent: Agent;
  let drop: (() => Promise<void>) | undefined;
  let owner: Awaited<ReturnType<Agent["user"]>>;
  let chat: typeof import("@/lib/runs/host");
  let runs: typeof import("@/lib/db/runs");

  beforeAll(async () => {
    // startChatTurn takes the workspace root from config: keep test files out of the repository.
    process.env.WORKSPACE_ROOT = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-chat-ws-"));
    const target = await make();
    drop = target.drop;
    agent = await loadAgent(target.url);
    owner = await agent.user("owner@example.com");
    chat = await import("@/lib/runs/host");
    runs = await import("@/lib/db/runs");
  });

  afterAll(async () => {
    await agent?.db.$disconnect();
    vi.resetModules();
    await drop?.();
  });

  it("Stop aborts a running exec of sleep 30 quickly; the call is recorded as aborted and the run as aborted", async () => {
    await agent.setPolicy({ exec: { security: "full" } });
    try {
      const s = await agent.session(owner.id, "coding");
      const started = Date.now();
      const { stream, done } = await chat.startChatTurn({
        user: owner,
        sessionId: s.id,
        text: '/tool exec {"command":"sleep 30"}',
      });
      const reader = stream.getReader();
      const seen: UIMessageChunk[] = [];
      await readUntil(reader, seen, (c) => c.type === "tool-input-available");
      await new Promise((r) => setTimeout(r, 300)); // let the command start
      expect((await runs.findActiveRun({ sessionId: s.id }))?.status).toBe("running");
      expect(await chat.stopChatTurn({ user: owner, sessionId: s.id })).toEqual({ stopped: true });
      const result = await done;
      expect(Date.now() - started).toBeLessThan(10_000);
      expect(result.status).toBe("aborted");
      await readUntil(reader, seen, () => false);
      expect(seen.at(-1)?.type).toBe("abort");
      const run = await agent.db.agentRun.findUnique({ where: { id: result.runId } });
      expect(run?.status).toBe("aborted");
      const transcript = await agent.messages.listMessages({ sessionId: s.id });
      expect(transcript.map((m) => m.role)).toEqual(["user", "assistant", "tool"]);
      expect(transcript[2]).toMatchObject({ toolName: "exec", parts: { status: "aborted" } });
      expect(await runs.findActiveRun({ sessionId: s.id })).toBeNull();
      expect(await chat.stopChatTurn({ user: owner, sessionId: s.id })).toEqual({ stopped: false });
    } finally {
      await agent.setPolicy({});
    }
  });

  it("a second turn in a session with a running turn is refused with CONFLICT", async () => {
    const s = await agent.session(owner.id);
    const slow = { model: agent.createOfflineModel({ chunkDelayMs: 50 }), info: { provider: "offline" } };
    const first = await chat.startChatTurn({
      user: owner,
      sessionId: s.id,
      text: "hello there, offline model",
      model: slow,
    });
    await expect(chat.startChatTurn({ user: owner, sessionId: s.id, text: "again" })).rejects.toMatchObject({
      code: "CONFLICT",
    });
    await first.done;
  });

  it("a client that disconnects after the first chunk does not stop the turn: every message is persisted in order", async () => {
    const s = await agent.session(owner.id);
    const slow = { model: agent.createOfflineModel({ chunkDelayMs: 40 }), info: { provider: "offline" } };
    const { stream, done } = await chat.startChatTurn({
      user: owner,
      sessionId: s.id,
      text: '/tool current_time {}\n/tool read {"path":"a.txt"}',
      model: slow,
    });
    const reader = stream.getReader();
    const first = await reader.read();
    expect(first.done).toBe(false);
    await reader.cancel("client went away");
    const result = await done;
    expect(result.status).toBe("completed");
    const transcript = await agent.messages.listMessages({ sessionId: s.id });
    expect(transcript.map((m) => m.role)).toEqual(["user", "assistant", "tool", "tool", "assistant"]);
    expect(transcript.map((m) => m.seq)).toEqual([...transcript.map((m) => m.seq)].sort((a, b) => a - b));
    expect(transcript.slice(2, 4).map((m) => (m.parts as { status: string }).status)).toEqual(["ok", "denied"]);
    expect(transcript[4]!.content).toMatch(/current_time/);
  });

  // Stop from another instance reaches this one as an event (or at the next lease renewal): a call whose claim
  // comes first must not start. The Stop is written straight into the run's row, as the other instance does, and
  // this instance has not heard of it yet when the first of three calls is claimed.
  it("a Stop this instance has not heard of yet: the next claim is refused, nothing runs, every call gets its line", async () => {
    const { ToolHooks } = await import("@/lib/runs/hooks");
    const { scriptedModel, toolCallPart, finishPart } = await import("../support/agent-harness");
    const s = await agent.session(owner.id);
    const hooks = new ToolHooks().onBeforeToolCall(async (c) => {
      if (c.callId !== "s1") return;
      const run = await agent.db.agentRun.findFirstOrThrow({ where: { sessionId: c.sessionId, status: "running" } });
      await agent.db.agentRun.update({
        where: { id: run.id },
        data: { stopRequestedAt: new Date(), stopRequestedBy: "another instance" },
      });
    });
    const model = scriptedModel([
      [
        toolCallPart("s1", "current_time", "{}"),
        toolCallPart("s2", "current_time", "{}"),
        toolCallPart("s3", "current_time", "{}"),
        finishPart("tool-calls"),
      ],
    ]);
    const { result, transcript } = await agent.turn({
      sessionId: s.id,
      user: owner,
      text: "three calls",
      model,
      hooks,
    });
    expect(result.status).toBe("aborted");
    const calls = await agent.db.toolCall.findMany({ where: { sessionId: s.id }, orderBy: { callId: "asc" } });
    expect(calls.map((c) => [c.callId, c.status])).toEqual([
      ["s1", "stopped"],
      ["s2", "stopped"],
      ["s3", "stopped"],
    ]);
    const lines = transcript
      .filter((m) => m.role === "tool")
      .map((m) => [
        m.toolCallId,
        (JSON.parse(m.content) as { error_code?: string; error?: string }).error_code ??
          (JSON.parse(m.content) as { error?: string }).error,
      ]);
    expect(lines).toEqual([
      ["s1", "STOPPED"],
      ["s2", "stopped before this call ran"],
      ["s3", "stopped before this call ran"],
    ]);
    // No allow row: nothing ran.
    expect(await agent.db.auditLog.count({ where: { sessionId: s.id, action: "tool.call", decision: "allow" } })).toBe(
      0,
    );
  });
});
