// How many Prisma operations one tool call costs, on a real database, so that a change that adds reads or writes
// to the record path fails here: one gateway tools/call (the whole /mcp request: token, rate limit, the client's
// session, the pipeline and its records) and one chat turn whose model makes one allowed call, beside the same turn
// without the call (the difference is what the call itself costs). Counted by a query extension on lib's client
// (tests/support/operation-count.ts): model operations and raw statements, inside transactions too. The bounds are
// the counts measured when they were set (issue 27: 26 → 21 → 18 per gateway call, 36 → 28 → 27 per chat turn with
// one call, 22 → 14 → 13 without); lower them when the path gets cheaper.
import { beforeAll, describe, expect, it } from "vitest";
import { dbTargets, finishPart, scriptedModel, toolCallPart, useAgentOnDatabase } from "../support/agent-harness";
import { countOperations, type OperationLog } from "../support/operation-count";

const MAX_GATEWAY_CALL = 18;
const MAX_CHAT_TURN_WITH_CALL = 27;
const MAX_CHAT_TURN_WITHOUT_CALL = 13;

// No background work during a count: the lease heartbeat and the event tailer's safety poll run on timers.
process.env.RUN_LEASE_SECONDS = "3600";
process.env.EVENT_POLL_MS = "600000";

describe.each(dbTargets())("operations per tool call (%s)", (_kind, make) => {
  const h = useAgentOnDatabase(make);
  let ops: OperationLog;
  let token: string;
  let mcp: typeof import("@/lib/gateway/mcp-endpoint");
  let host: typeof import("@/lib/runs/host");
  beforeAll(async () => {
    await h.agent.setPolicy({});
    const tokens = await import("@/lib/auth/access-tokens");
    mcp = await import("@/lib/gateway/mcp-endpoint");
    host = await import("@/lib/runs/host");
    ({ token } = await tokens.createAccessToken({ user: h.member, body: { name: "operations", mode: "chat_safe" } }));
    ops = countOperations(process.env.DATABASE_URL!);
  });

  let n = 0;
  async function gatewayCall(): Promise<void> {
    const request = new Request("http://localhost:3000/mcp", {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++n,
        method: "tools/call",
        params: { name: "current_time", arguments: {} },
      }),
    });
    const response = await mcp.handleMcpRequest(request);
    const text = await response.text();
    // The call ran: a result with the time, no error.
    expect(response.status).toBe(200);
    expect(text).toMatch(/"result":\{"content":\[\{"type":"text","text":".*\d{4}-\d{2}-\d{2}/);
    expect(text).not.toContain("isError");
  }

  async function chatTurn(withCall: boolean): Promise<() => Promise<void>> {
    const session = await h.agent.session(h.member.id);
    const callId = `c_${++n}`;
    const model = scriptedModel(
      withCall ? [[toolCallPart(callId, "current_time", "{}"), finishPart("tool-calls")]] : [],
    );
    return async () => {
      const started = await host.startChatTurn({
        user: h.member,
        sessionId: session.id,
        text: "what time is it?",
        model: { model, info: { provider: "offline", model: "scripted" } },
      });
      void started.stream.pipeTo(new WritableStream());
      expect((await started.done).status).toBe("completed");
      if (withCall)
        expect(
          await h.agent.db.toolCall.findUnique({ where: { sessionId_callId: { sessionId: session.id, callId } } }),
        ).toMatchObject({ status: "done" });
    };
  }

  const explain = (operations: string[]) => `${operations.length} operations: ${operations.join(", ")}`;

  it(`a gateway tools/call makes at most ${MAX_GATEWAY_CALL} operations`, async () => {
    await gatewayCall(); // the client's session made and the token's last use written: the first call only
    for (let i = 0; i < 2; i++) {
      const operations = await ops.during(gatewayCall);
      expect(operations.length, explain(operations)).toBeLessThanOrEqual(MAX_GATEWAY_CALL);
    }
  });

  it(`a chat turn with one tool call makes at most ${MAX_CHAT_TURN_WITH_CALL} operations, without it ${MAX_CHAT_TURN_WITHOUT_CALL}`, async () => {
    await (
      await chatTurn(true)
    )(); // warm: the policy's first read, the event tailer started
    for (let i = 0; i < 2; i++) {
      const withCall = await ops.during(await chatTurn(true));
      expect(withCall.length, explain(withCall)).toBeLessThanOrEqual(MAX_CHAT_TURN_WITH_CALL);
      const without = await ops.during(await chatTurn(false));
      expect(without.length, explain(without)).toBeLessThanOrEqual(MAX_CHAT_TURN_WITHOUT_CALL);
    }
  });
});
