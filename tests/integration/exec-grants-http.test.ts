// Issue 18 over HTTP against the built app: a member in coding mode cannot run anything an owner did not approve
// (the three attacks), "allow always" stores what the owner saw (exact argv or a chosen prefix), for the
// scope the owner chose, until it expires or is revoked, and every use is audited with the command.
import { statSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedIn, type HttpClient } from "../support/http-client";
import { appTargets } from "../support/targets";
import {
  askPending,
  chat,
  execLine,
  newCodingSession,
  setPolicy,
  settledTranscript,
  sleep,
  transcript,
} from "../support/approvals-helpers";
import { createDb, type Db } from "@/lib/db/client";
import { probeSandbox } from "@/lib/tools/sandbox";

const probe = await probeSandbox();
if (!probe.ok) console.warn(`[exec grants http tests] skipped: bwrap cannot start here (${probe.reason})`);

describe.skipIf(!probe.ok).each(appTargets())("exec approvals and grants over HTTP (%s)", (kind, app) => {
  let db: Db;
  let member: HttpClient;
  let other: HttpClient; // a second requester (the admin account, also granted coding)
  let owner: HttpClient;
  let memberId: string;
  let otherId: string;
  let memberSession: string;
  let otherSession: string;

  const decide = (id: string, body: Record<string, unknown>) =>
    owner.json(`/api/approvals/${id}/decision`, { method: "POST", body });
  const lastExec = async (client: HttpClient, sessionId: string) =>
    (await transcript(client, sessionId)).filter((r) => r.role === "tool" && r.toolName === "exec").at(-1)!;
  /**
   * Runs a command line and tells whether it ran at once ("ok") or waited for an owner ("pending"). A waiting call
   * is denied and settled before returning: a session with a paused turn takes no new message.
   */
  async function outcome(client: HttpClient, sessionId: string, command: string): Promise<string> {
    const chunks = await chat(client, sessionId, execLine(command));
    const pending = chunks.find((c) => c.type === "data-approval_pending");
    if (pending) {
      expect((await decide(pending.data.approvalId, { decision: "deny" })).status).toBe(200);
      await settledTranscript(client, sessionId, pending.data.callId);
      return "pending";
    }
    return (await lastExec(client, sessionId)).parts.status;
  }

  beforeAll(async () => {
    db = createDb(app.databaseUrl);
    member = await signedIn(app.url, "member@example.com");
    other = await signedIn(app.url, "admin@example.com");
    owner = await signedIn(app.url, "owner@example.com");
    memberId = (await member.json("/api/me")).body.user.id;
    otherId = (await other.json("/api/me")).body.user.id;
    await setPolicy(
      db,
      { modeGrants: { users: { [memberId]: ["chat_safe", "coding"], [otherId]: ["chat_safe", "coding"] } } },
      "exec grants test",
    );
    memberSession = await newCodingSession(member);
    otherSession = await newCodingSession(other);
  });

  afterAll(async () => {
    await db.allowlistEntry.deleteMany({});
    await setPolicy(db, {}, "exec grants test done");
    await db.$disconnect();
  });

  it.skipIf(kind !== "sqlite")(
    "the SQLite database is readable by the server's user only (commands on the host run as other uids)",
    () => {
      const file = app.databaseUrl.replace(/^file:/, "");
      expect(statSync(file).mode & 0o777).toBe(0o600);
    },
  );

  it("attack 1: a parameter expansion reaching for the server's secret waits for an owner, and says why", async () => {
    const { approvalId } = await askPending(
      member,
      memberSession,
      execLine("head -c 200 ${HOME%%workspaces*}auth-secret"),
    );
    const view = (await owner.json(`/api/approvals/${approvalId}`)).body.approval;
    expect(view.reason).toMatch(/not plain: a parameter expansion/);
    expect(view.allowAlways).toMatchObject({ rules: [], refused: [expect.stringMatching(/not plain/)] });
    // Even approved once, the sandbox has no such file: nothing of the secret comes back.
    expect((await decide(approvalId, { decision: "allow-once" })).status).toBe(200);
    const { tool } = await settledTranscript(
      member,
      memberSession,
      (await lastExec(member, memberSession)).toolCallId!,
      60_000,
    );
    expect(JSON.stringify(tool.parts)).not.toContain("toolgate-test-secret");
  });

  it.each([
    ["sort -S 1K --compress-program=sh p.txt"], // attack 2: a program run by a "safe" bin
    ["uniq in ../escaped.txt"], // attack 2: an output operand outside
    ["./wc -l"], // attack 2: a copy named like a safe bin
    ["git -c alias.x='!id' x"], // attack 3
    ["cat /etc/shadow"],
  ])("%j waits for an owner", async (command) => {
    expect(await outcome(member, memberSession, command)).toBe("pending");
  });

  it("a safe bin with its profile runs without an owner", async () => {
    expect(await outcome(member, memberSession, "wc -l")).toBe("ok");
  });

  it("allow always on git status: exactly that argv, for that member only; git -c still waits (attack 3)", async () => {
    const { approvalId } = await askPending(member, memberSession, execLine("git status"));
    const preview = (await owner.json(`/api/approvals/${approvalId}`)).body.approval.allowAlways;
    expect(preview).toMatchObject({
      rules: ["git status"],
      refused: [],
      scopes: expect.arrayContaining(["user", "everyone"]),
    });
    const decided = await decide(approvalId, { decision: "allow-always", grant: { scope: "user" } });
    expect(decided.status).toBe(200);
    expect(decided.body.allowlisted).toEqual(["git status"]);
    await settledTranscript(member, memberSession, (await lastExec(member, memberSession)).toolCallId!);

    expect(await outcome(member, memberSession, "git status")).toBe("ok");
    expect(await outcome(member, memberSession, "git status --short")).toBe("pending");
    expect(await outcome(member, memberSession, "git -c alias.x='!id' x")).toBe("pending");
    expect(await outcome(other, otherSession, "git status")).toBe("pending");

    const grant = await db.allowlistEntry.findFirstOrThrow({ where: { pattern: "git status" } });
    expect(grant).toMatchObject({ kind: "exec", scope: "user", scopeId: memberId, prefix: false });
    expect(grant.useCount).toBeGreaterThanOrEqual(1);
    const use = await db.auditLog.findFirstOrThrow({
      where: { action: "tool.call", toolName: "exec", decision: "allow", sessionId: memberSession },
      orderBy: { seq: "desc" },
    });
    expect(use.details).toMatchObject({ args: { command: expect.any(String) }, execution: "sandbox" });
    expect(await db.auditLog.count({ where: { action: "grant.created" } })).toBeGreaterThanOrEqual(1);
  });

  it("a prefix the owner chose, for everyone; revoking it makes the command wait again", async () => {
    const { approvalId } = await askPending(member, memberSession, execLine("ls -la sub"));
    expect((await owner.json(`/api/approvals/${approvalId}`)).body.approval.allowAlways.rules).toEqual(["ls -la sub"]);
    const decided = await decide(approvalId, {
      decision: "allow-always",
      grant: { scope: "everyone", prefixWords: 1 },
    });
    expect(decided.body.allowlisted).toEqual(["ls *"]);
    await settledTranscript(member, memberSession, (await lastExec(member, memberSession)).toolCallId!);
    expect(await outcome(other, otherSession, "ls -l")).toBe("ok");

    const listed = await owner.json("/api/exec-allowlist");
    const row = listed.body.grants.find((g: { rule: string }) => g.rule === "ls *");
    expect(row).toMatchObject({ scope: "everyone", createdBy: "owner@example.com" });
    expect((await member.json("/api/exec-allowlist")).status).toBe(403);
    expect((await member.json(`/api/exec-allowlist/${row.id}`, { method: "DELETE" })).status).toBe(403);
    const revokedBefore = await db.auditLog.count({ where: { action: "grant.revoked" } });
    expect((await owner.json(`/api/exec-allowlist/${row.id}`, { method: "DELETE" })).status).toBe(200);
    expect(await db.auditLog.count({ where: { action: "grant.revoked" } })).toBe(revokedBefore + 1);
    expect(await outcome(other, otherSession, "ls -l")).toBe("pending");
  });

  it("a grant stops working when it expires", async () => {
    const { approvalId } = await askPending(member, memberSession, execLine("date -u"));
    expect(
      (await decide(approvalId, { decision: "allow-always", grant: { scope: "user", expiresInHours: 0.0008 } })).status,
    ).toBe(200);
    await settledTranscript(member, memberSession, (await lastExec(member, memberSession)).toolCallId!);
    expect(await outcome(member, memberSession, "date -u")).toBe("ok");
    await sleep(3_200);
    expect(await outcome(member, memberSession, "date -u")).toBe("pending");
  });

  it("a bad grant choice is refused with 422 and leaves the approval pending", async () => {
    const { approvalId } = await askPending(member, memberSession, execLine("uname -a"));
    const team = await decide(approvalId, { decision: "allow-always", grant: { scope: "team", teamId: "nope" } });
    expect(team.status).toBe(422);
    const agent = await decide(approvalId, { decision: "allow-always", grant: { scope: "agent" } });
    expect(agent.status).toBe(422);
    const once = await decide(approvalId, { decision: "allow-once", grant: { scope: "everyone" } });
    expect(once.status).toBe(422);
    expect((await db.approval.findUniqueOrThrow({ where: { id: approvalId } })).status).toBe("pending");
    expect(await db.allowlistEntry.count({ where: { pattern: { startsWith: "uname" } } })).toBe(0);
    expect((await decide(approvalId, { decision: "deny" })).status).toBe(200);
    await settledTranscript(member, memberSession, (await lastExec(member, memberSession)).toolCallId!);
  });

  it("allow always on a command runner stores nothing and says why", async () => {
    const { approvalId } = await askPending(member, memberSession, execLine("sh -c id"));
    const decided = await decide(approvalId, { decision: "allow-always" });
    expect(decided.body).toMatchObject({ allowlisted: [], refused: [expect.stringMatching(/sh runs other programs/)] });
    await settledTranscript(member, memberSession, (await lastExec(member, memberSession)).toolCallId!);
    expect(await outcome(member, memberSession, "sh -c id")).toBe("pending");
  });

  it("the owners' list cuts long arguments; the approval itself has them whole", async () => {
    const big = "x".repeat(50_000);
    const req = await member.json("/api/approvals", {
      method: "POST",
      body: {
        sessionId: memberSession,
        toolName: "write",
        callId: `big-${Date.now()}`,
        args: { path: "a.txt", content: big },
      },
    });
    expect(req.status).toBe(202);
    const list = await owner.fetch("/api/approvals?status=pending");
    const text = await list.text();
    const row = (JSON.parse(text).approvals as Array<{ id: string; truncated?: boolean; args: unknown }>).find(
      (a) => a.id === req.body.id,
    )!;
    expect(row.truncated).toBe(true);
    expect(JSON.stringify(row.args).length).toBeLessThan(3_000);
    const one = (await owner.json(`/api/approvals/${req.body.id}`)).body.approval;
    expect(one.args.content).toBe(big);
    await owner.json(`/api/approvals/${req.body.id}/decision`, { method: "POST", body: { decision: "deny" } });
  });

  it("the audit row of a call carries the command with secrets redacted", async () => {
    const { approvalId, callId } = await askPending(
      member,
      memberSession,
      execLine("echo API_KEY=abc123secret token: zz99"),
    );
    expect((await decide(approvalId, { decision: "allow-once" })).status).toBe(200);
    // 60 s: the run engine resumes on the decision's event, or at the latest on its 15 s recovery sweep.
    await settledTranscript(member, memberSession, callId, 60_000);
    const row = await db.auditLog.findFirstOrThrow({ where: { action: "tool.call", callId, decision: "allow" } });
    const command = (row.details as { args: { command: string } }).args.command;
    expect(command).toContain("echo API_KEY=[redacted]");
    expect(command).not.toContain("abc123secret");
    expect(command).not.toContain("zz99");
  });

  // A granted "git log *" wrote any text into .git/config through --output, for a granted "git status" to run as a
  // filter. A call that runs because a rule covers it finds .git read-only; a call an owner approved does not.
  it("a rule-covered command finds .git read-only; an owner-approved one can change it", async () => {
    const grants = { users: { [memberId]: ["chat_safe", "coding"], [otherId]: ["chat_safe", "coding"] } };
    await setPolicy(
      db,
      { modeGrants: grants, exec: { allowlist: ["git log *"] } },
      "exec grants test: git log allowed",
    );
    try {
      const session = await newCodingSession(member);
      const setup = await askPending(
        member,
        session,
        execLine(
          "git init -q . && echo one > f.txt && git -c user.email=a@b -c user.name=a add f.txt && git -c user.email=a@b -c user.name=a commit -qm one && echo ready",
        ),
      );
      expect((await decide(setup.approvalId, { decision: "allow-once" })).status).toBe(200);
      expect(JSON.stringify((await settledTranscript(member, session, setup.callId, 60_000)).tool.parts)).toContain(
        "ready",
      );
      const write = "git log -1 --output=.git/config --format=planted";
      expect(await outcome(member, session, write)).toBe("ok");
      expect(JSON.stringify((await lastExec(member, session)).parts)).toMatch(/Read-only file system|could not open/);
      const approved = await askPending(
        member,
        session,
        execLine("git log -1 --output=.git/description --format=approved && cat .git/description"),
      );
      expect((await decide(approved.approvalId, { decision: "allow-once" })).status).toBe(200);
      expect(JSON.stringify((await settledTranscript(member, session, approved.callId, 60_000)).tool.parts)).toContain(
        "approved",
      );
    } finally {
      await setPolicy(db, { modeGrants: grants }, "exec grants test: git log removed");
    }
  });
});
