// Issue 32 over real HTTP on every app target: POST /api/sessions with agentId (201, 403 for an agent usableBy does
// not give this member, 404 unknown, 422 malformed), GET /api/agents, the session's JSON naming the agent, and an
// agentId forged on a chat request or a PATCH never switching the session's agent (it is fixed at creation).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpClient, signedIn } from "../support/http-client";
import { chat, setPolicy } from "../support/approvals-helpers";
import { appTargets } from "../support/targets";
import { createDb, type Db } from "@/lib/db/client";

const POLICY = {
  agents: {
    clockless: {
      name: "Clockless",
      persona: "You are a clock-shy archivist.",
      tools: { deny: ["current_time"] },
      usableBy: { roles: ["member"] },
    },
    timekeeper: { name: "Timekeeper", persona: "You are a ship's clock.", usableBy: { roles: ["member"] } },
    ownersOnly: { name: "Owners only", usableBy: { roles: ["owner"] } },
  },
};

describe.each(appTargets())("agents over HTTP (%s)", (_kind, app) => {
  let db: Db;
  let member: HttpClient;
  let previous: unknown;

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    previous = (await db.policyVersion.findFirst({ orderBy: { version: "desc" } }))?.document ?? {};
    await setPolicy(db, POLICY, "agents http test");
  });
  afterAll(async () => {
    await setPolicy(db, previous, "agents http test: restore");
    await db.$disconnect();
  });

  it("lists the member's agents, creates a chat as one, and shows the agent in the session's JSON", async () => {
    const agents = await member.json("/api/agents");
    expect(agents.status).toBe(200);
    expect(agents.body.agents.map((a: { id: string }) => a.id)).toEqual(["clockless", "timekeeper"]);
    const created = await member.json("/api/sessions", { method: "POST", body: { agentId: "clockless" } });
    expect(created.status).toBe(201);
    expect(created.body.agentId).toBe("clockless");
    const shown = await member.json(`/api/sessions/${created.body.id}`);
    expect(shown.body).toMatchObject({
      agentId: "clockless",
      agent: { id: "clockless", name: "Clockless", available: true },
    });
    const list = await member.json("/api/sessions");
    expect(list.body.sessions.find((s: { id: string }) => s.id === created.body.id).agentId).toBe("clockless");
  });

  it("refuses an agent the member may not use (403), an unknown one (404) and a malformed one (422), with a JSON error", async () => {
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ agentId: "ownersOnly" }, 403, "FORBIDDEN", /may not use the agent "ownersOnly"/],
      [{ agentId: "nope" }, 404, "NOT_FOUND", /no agent "nope"/],
      [{ agentId: "__proto__" }, 404, "NOT_FOUND", /no agent/],
      [{ agentId: "" }, 422, "VALIDATION_FAILED", /agentId/],
      [{ agentId: 7 }, 422, "VALIDATION_FAILED", /agentId/],
      [{ agentId: "x".repeat(101) }, 422, "VALIDATION_FAILED", /longer than 100/],
    ];
    for (const [body, status, code, message] of cases) {
      const res = await member.json("/api/sessions", { method: "POST", body });
      expect({ body, status: res.status, code: res.body.error?.code }).toEqual({ body, status, code });
      expect(res.body.error.message).toMatch(message);
      expect(JSON.stringify(res.body)).not.toMatch(/\/work\/|at \w+ \(|prisma/i);
    }
  });

  it("an agentId forged on a chat request or a PATCH does not switch the agent: the deny of clockless still applies, audited with layer agent", async () => {
    const created = await member.json("/api/sessions", { method: "POST", body: { agentId: "clockless" } });
    const id = created.body.id as string;
    const patched = await member.json(`/api/sessions/${id}`, { method: "PATCH", body: { agentId: "timekeeper" } });
    expect(patched.status).toBe(422);
    // Forged in the message and beside it: the server reads the agent from the session row only.
    const res = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        sessionId: id,
        agentId: "timekeeper",
        message: { role: "user", agentId: "timekeeper", parts: [{ type: "text", text: "/tool current_time {}" }] },
      }),
    });
    expect(res.status).toBe(200);
    await res.text();
    await chat(member, id, "/tool current_time {}", [], { agentId: "timekeeper", metadata: { agentId: "timekeeper" } });
    const rows = await db.auditLog.findMany({ where: { sessionId: id, action: "tool.call" }, orderBy: { seq: "asc" } });
    expect(rows.map((r) => [r.toolName, r.decision, r.layer, (r.details as { agentId?: string }).agentId])).toEqual([
      ["current_time", "deny", "agent", "clockless"],
      ["current_time", "deny", "agent", "clockless"],
    ]);
    expect((await db.chatSession.findUnique({ where: { id } }))!.agentId).toBe("clockless");
    const who = await chat(member, id, "who are you");
    expect(JSON.stringify(who)).toMatch(/I am Clockless, .*clock-shy archivist/);
  });
});
