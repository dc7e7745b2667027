// Issue 34: OpenTelemetry traces reach an OTLP/HTTP receiver the test runs. One chat turn with an allowed call,
// a call the mode denies and a hostile tool name that is a host path: one trace per turn, whose gate spans carry
// the tool, the decision, the deciding layer and rule and the policy version; the tool's run and the records are
// spans of the same trace; the audit rows name the trace; no attribute carries a host path. Without the endpoint
// configured the app sends nothing (the first app of the metrics test runs without it). An outside client's call
// through /mcp is a trace of its own (toolgate.mcp_call) with the same gate and record spans.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startApp, type RunningApp } from "../support/app-server";
import { signedIn } from "../support/http-client";
import { newSqliteUrl, prepareDatabase } from "../support/databases";
import {
  askPending,
  chat,
  codingGrant,
  execLine,
  newCodingSession,
  setPolicy,
  settledTranscript,
  until,
} from "../support/approvals-helpers";
import { startOtlpReceiver, type ReceivedSpan } from "../support/otlp-receiver";
import { createDb, type Db } from "@/lib/db/client";

let app: RunningApp;
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let db: Db;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  const url = newSqliteUrl();
  prepareDatabase(url);
  db = createDb(url);
  app = await startApp({
    databaseUrl: url,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_BSP_SCHEDULE_DELAY: "200",
      OTEL_SERVICE_NAME: "toolgate-test",
    },
  });
});

afterAll(async () => {
  await app?.stop();
  await receiver?.close();
  await db?.$disconnect();
});

describe("ops: traces", () => {
  it("a turn's spans with the gate's attributes, and the trace id in the audit rows", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const sessionId = (await member.json("/api/sessions", { method: "POST", body: {} })).body.id as string;
    await chat(
      member,
      sessionId,
      ["/tool current_time {}", '/tool exec {"command":"ls"}', "/tool /home/alice/secret.txt {}"].join("\n"),
    );

    const spansOf = (name: string) => receiver.spans.filter((s) => s.name === name);
    await until(
      "the turn's spans",
      async () => (spansOf("toolgate.turn").length >= 1 && spansOf("toolgate.gate").length >= 3 ? true : null),
      30_000,
      200,
    );
    const turn = spansOf("toolgate.turn")[0]!;
    expect(turn.service).toBe("toolgate-test");
    expect(turn.attributes["toolgate.outcome"]).toBe("completed");
    const inTurn = receiver.spans.filter((s) => s.traceId === turn.traceId);
    const names = new Set(inTurn.map((s) => s.name));
    for (const name of ["toolgate.model_step", "toolgate.gate", "toolgate.tool_run", "toolgate.record"])
      expect(names, name).toContain(name);

    const gates = inTurn.filter((s) => s.name === "toolgate.gate");
    const allowed = gates.find((s) => s.attributes["toolgate.tool"] === "current_time")!;
    expect(allowed.attributes).toMatchObject({ "toolgate.decision": "allow" });
    expect(typeof allowed.attributes["toolgate.layer"]).toBe("string");
    expect(typeof allowed.attributes["toolgate.policy_version"]).toBe("number");
    const denied = gates.find((s) => s.attributes["toolgate.tool"] === "exec")!;
    expect(denied.attributes).toMatchObject({ "toolgate.decision": "deny", "toolgate.layer": "mode" });
    expect(typeof denied.attributes["toolgate.rule"]).toBe("string");
    // The hostile name went through the audit's redaction: no host path in any attribute.
    expect(JSON.stringify(receiver.spans.map((s: ReceivedSpan) => s.attributes))).not.toContain("/home/alice");
    expect(gates.some((s) => s.attributes["toolgate.tool"] === "<path>")).toBe(true);

    // The gate spans are children of the turn's trace, and the audit rows of this session name it.
    const rows = await db.auditLog.findMany({ where: { sessionId, action: "tool.call" } });
    expect(rows.length).toBe(3);
    for (const row of rows) expect((row.details as { traceId?: string }).traceId).toBe(turn.traceId);
    expect(receiver.contentTypes.every((t) => t.includes("application/json"))).toBe(true);
  });

  it("a run that waited for an owner continues as a trace with the approval wait and the sandbox run", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const memberId = (await member.json("/api/me")).body.user.id as string;
    await setPolicy(db, codingGrant(memberId), "traces test");
    const sessionId = await newCodingSession(member);
    const { approvalId, callId } = await askPending(member, sessionId, execLine("echo traced"));
    const owner = await signedIn(app.url, "owner@example.com");
    expect(
      (await owner.json(`/api/approvals/${approvalId}/decision`, { method: "POST", body: { decision: "allow-once" } }))
        .status,
    ).toBe(200);
    const { tool } = await settledTranscript(member, sessionId, callId);
    expect(tool.parts.status).toBe("ok");

    const wait = await until(
      "the approval wait span",
      async () =>
        receiver.spans.find(
          (s) => s.name === "toolgate.approval_wait" && s.attributes["toolgate.approval_id"] === approvalId,
        ) ?? null,
      30_000,
      200,
    );
    expect(wait.attributes).toMatchObject({
      "toolgate.approval_status": "approved",
      "toolgate.approval_decision": "allow-once",
    });
    const resumed = await until(
      "the resumed turn",
      async () => receiver.spans.find((s) => s.traceId === wait.traceId && s.name === "toolgate.turn") ?? null,
      30_000,
      200,
    );
    expect(resumed.attributes["toolgate.resumed"]).toBe(true);
    // Its own trace: a resume is woken by the event bus, whose timers began inside an earlier turn's span.
    expect(resumed.parentSpanId).toBeUndefined();
    const run = await until(
      "the sandbox run",
      async () => receiver.spans.find((s) => s.traceId === wait.traceId && s.name === "toolgate.tool_run") ?? null,
      30_000,
      200,
    );
    expect(run.attributes).toMatchObject({ "toolgate.tool": "exec", "toolgate.execution": "sandbox" });
    const gate = receiver.spans.find((s) => s.traceId === wait.traceId && s.name === "toolgate.gate");
    expect(gate?.attributes["toolgate.decision"]).toBe("ask");
  });

  it("an outside client's MCP call is a trace of its own, with the gate and the record as its spans", async () => {
    const member = await signedIn(app.url, "member@example.com");
    const token = (await member.json("/api/tokens", { method: "POST", body: { name: "traced-client" } })).body
      .token as string;
    const client = new Client({ name: "traces-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: "current_time", arguments: {} });
      expect(result.isError).toBeFalsy();
    } finally {
      await client.close();
    }
    const call = await until(
      "the MCP call's root span",
      async () =>
        receiver.spans.find(
          (s) => s.name === "toolgate.mcp_call" && s.attributes["toolgate.client"] === "traced-client",
        ) ?? null,
      30_000,
      200,
    );
    expect(call.parentSpanId).toBeUndefined();
    expect(call.attributes).toMatchObject({ "toolgate.tool": "current_time", "toolgate.outcome": "ok" });
    const gate = await until(
      "its gate span",
      async () => receiver.spans.find((s) => s.traceId === call.traceId && s.name === "toolgate.gate") ?? null,
      30_000,
      200,
    );
    expect(gate.attributes).toMatchObject({ "toolgate.tool": "current_time", "toolgate.decision": "allow" });
    expect(typeof gate.attributes["toolgate.layer"]).toBe("string");
    await until(
      "its record span",
      async () => receiver.spans.find((s) => s.traceId === call.traceId && s.name === "toolgate.record") ?? null,
      30_000,
      200,
    );
  });
});
