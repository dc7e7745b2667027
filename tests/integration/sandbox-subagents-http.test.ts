// Issue 8's "Done when", over HTTP against the built app: a sandboxed member in coding mode runs exec inside
// bubblewrap (no writes outside the workspace, no network, the workspace file readable afterwards), and
// sessions_spawn returns a child's answer while the child itself cannot spawn. Skipped with the reason only
// when bwrap cannot start on this machine (the project's bootstrap installs it).
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";
import { readUiStream } from "../support/ui-stream";
import { createDb, type Db } from "@/lib/db/client";
import { probeSandbox } from "@/lib/tools/sandbox";

const say = (sessionId: string, text: string) => ({
  sessionId,
  message: { role: "user", parts: [{ type: "text", text }] },
});
const probe = await probeSandbox();
if (!probe.ok) console.warn(`[sandbox http tests] skipped: bwrap cannot start here (${probe.reason})`);

type Row = {
  role: string;
  toolName: string | null;
  content: string;
  parts: { status?: string; output?: Record<string, unknown> } | null;
};

describe.skipIf(!probe.ok).each(appTargets())("sandboxed sessions and subagents over HTTP (%s)", (_kind, app) => {
  let db: Db;
  let member: HttpClient;
  let memberId: string;
  let sessionId: string;

  async function setPolicy(document: unknown) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    await db.policyVersion.create({
      data: { version: (last?.version ?? 0) + 1, document: document as never, comment: "sandbox-subagents test" },
    });
  }

  async function chat(text: string, id = sessionId) {
    const res = await member.fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(say(id, text)),
    });
    expect(res.status).toBe(200);
    return readUiStream(res);
  }

  async function lastTool(name: string, id = sessionId) {
    const { body } = await member.json<{ transcript: Row[] }>(`/api/sessions/${id}`);
    return body.transcript.filter((m) => m.role === "tool" && m.toolName === name).at(-1)!.parts!;
  }

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
    await setPolicy({
      modeGrants: { users: { [memberId]: ["chat_safe", "coding"] } },
      // The reference's sandbox default (group:fs, group:runtime) plus what this scenario spawns and asks.
      sandbox: {
        tools: { allow: ["group:fs", "group:runtime", "group:sessions", "current_time"], deny: ["gateway", "nodes"] },
        sandboxed: { users: [memberId] },
      },
      // touch and curl would otherwise wait for an owner's approval; the sandbox is what is under test here.
      exec: { security: "full", ask: "off" },
    });
    const created = await member.json("/api/sessions", { method: "POST", body: {} });
    sessionId = created.body.id;
    expect(
      (await member.json(`/api/sessions/${sessionId}`, { method: "PATCH", body: { mode: "coding" } })).status,
    ).toBe(200);
  });

  afterAll(async () => {
    await setPolicy({}); // later test files share this app
    await db.$disconnect();
  });

  it("exec runs inside the sandbox: touch /etc/x and curl to the app itself both fail", async () => {
    const port = new URL(app.url).port;
    // The app answers from outside the sandbox, so a failed curl inside is the missing network (or, where the command
    // has the egress proxy, the proxy's refusal of an address: -f makes that HTTP refusal a failed curl too).
    expect((await fetch(`${app.url}/api/auth/csrf`)).status).toBe(200);
    await chat(
      `/tool exec ${JSON.stringify({ command: `touch /etc/x; echo touch=$?; curl -sSf -m 5 http://127.0.0.1:${port}/api/auth/csrf; echo curl=$?` })}`,
    );
    const result = await lastTool("exec");
    expect(result.status).toBe("ok");
    expect(result.output!.stdout).toMatch(/touch=[1-9]/);
    expect(result.output!.stdout).toMatch(/curl=[1-9]/);
    expect(result.output!.stdout).not.toContain("csrfToken");
    expect(result.output!.stderr).toMatch(/touch: cannot touch '\/etc\/x'/);
    expect(existsSync("/etc/x")).toBe(false);
  });

  it("a file written in the workspace inside the sandbox is read back by the read tool", async () => {
    await chat('/tool exec {"command":"echo hi > out.txt"}');
    expect(await lastTool("exec")).toMatchObject({ status: "ok", output: { exitCode: 0 } });
    await chat('/tool read {"path":"out.txt"}');
    const read = await lastTool("read");
    expect(read.status).toBe("ok");
    expect(JSON.stringify(read.output)).toContain("hi\\n");
  });

  it("sessions_spawn returns the child's answer; the child is a hidden, owner-readable child session", async () => {
    await chat('/tool sessions_spawn {"task":"what time is it"}');
    const spawn = await lastTool("sessions_spawn");
    expect(spawn).toMatchObject({ status: "ok", output: { ok: true, status: "completed" } });
    expect(spawn.output!.answer).toMatch(/The tool "current_time" returned/);
    const childId = spawn.output!.sessionId as string;
    const child = await member.json<{ transcript: Row[]; mode: string }>(`/api/sessions/${childId}`);
    expect(child.status).toBe(200);
    expect(child.body.mode).toBe("coding");
    expect(child.body.transcript[0]).toMatchObject({ role: "user", content: "what time is it" });
    const list = (await member.json("/api/sessions")).body.sessions.map((s: { id: string }) => s.id);
    expect(list).toContain(sessionId);
    expect(list).not.toContain(childId);
  });

  it("the child cannot call sessions_spawn itself", async () => {
    await chat(`/tool sessions_spawn ${JSON.stringify({ task: '/tool sessions_spawn {"task":"what time is it"}' })}`);
    const spawn = await lastTool("sessions_spawn");
    expect(spawn.output!.answer).toMatch(/"sessions_spawn" was not allowed/);
    const nested = await lastTool("sessions_spawn", spawn.output!.sessionId as string);
    expect(nested).toMatchObject({
      status: "denied",
      output: { error_code: "POLICY_DENIED", tool_name: "sessions_spawn" },
    });
  });
});
