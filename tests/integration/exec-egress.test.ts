// Issue 28, network by domain: through the chat with the offline model (`/tool exec {...}`), in sandbox mode, with
// the real per-command egress proxy, real bubblewrap and a local HTTP server that EGRESS_HOSTS names. A listed
// domain answers with no owner; an unlisted one is refused at once and becomes one `domain` approval naming it;
// allow-once opens it for the next command only; allow-always is the member's, not another member's; the refused
// call is never re-run; a command trying many hosts asks a bounded number of times, within the approval budget.
// On SQLite, and PostgreSQL when configured; skipped with the reason only when bwrap or socat cannot run here.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, prepareDatabase, resetEventBus } from "../support/databases";
import { removeWorkspaceRoot } from "../support/workspaces";
import { probeSandbox } from "@/lib/tools/sandbox";

const probe = await probeSandbox();
const ready = probe.ok && fs.existsSync("/usr/bin/socat") && fs.existsSync("/usr/bin/curl");
if (!ready)
  console.warn(
    `[exec egress tests] skipped: bwrap or socat cannot run here (${probe.ok ? "no socat/curl" : probe.reason})`,
  );

type Network = {
  reached: string[];
  refused: Array<{ host: string; reason: string }>;
  approvals: Array<{ domain: string; approvalId: string | null; note?: string }>;
  note?: string;
};
type ToolRow = {
  parts: {
    status?: string;
    output?: { exitCode?: number; stdout?: string; stderr?: string; network?: Network };
  } | null;
};
type User = import("@/lib/auth/guards").CurrentUser;

const HOSTS = [
  "registry.test",
  "mirror.test",
  "once.test",
  "always.test",
  "team.test",
  ...Array.from({ length: 8 }, (_, i) => `many${i}.test`),
];

describe.skipIf(!ready).each(databaseTargets())("exec network by domain (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let db: import("@/lib/db/client").Db;
  let workspaceRoot: string;
  let member: User;
  let other: User;
  let admin: User;
  let server: Server;
  let port = 0;
  const hits: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      hits.push(`${req.method} ${req.headers.host}${req.url}`);
      res.end(`hello from ${req.headers.host?.split(":")[0]}`);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
    process.env.DATABASE_URL = target.url;
    process.env.WORKSPACE_ROOT = workspaceRoot;
    process.env.EVENT_POLL_MS = "600000";
    process.env.EGRESS_HOSTS = HOSTS.map((h) => `${h}=127.0.0.1`).join(",");
    resetEventBus();
    db = (await import("@/lib/db/client")).createDb(target.url);
    const users = await import("@/lib/db/users");
    const load = async (email: string) =>
      (await users.getUserWithRoles({ userId: (await users.findUserByEmail({ email }))!.id }))!;
    [member, other, admin] = await Promise.all([
      load("member@example.com"),
      load("owner@example.com"),
      load("admin@example.com"),
    ]);
    await db.policyVersion.create({
      data: {
        version: ((await db.policyVersion.findFirst({ orderBy: { version: "desc" } }))?.version ?? 0) + 1,
        comment: "exec egress test",
        document: {
          version: 2,
          modeGrants: { users: { [member.id]: ["chat_safe", "coding"], [other.id]: ["chat_safe", "coding"] } },
          exec: { network: { allow: [{ domain: "registry.test", ports: [port] }] } },
        } as never,
      },
    });
  });

  afterAll(async () => {
    await db?.$disconnect();
    vi.resetModules();
    delete (globalThis as { toolgateRegistry?: unknown }).toolgateRegistry;
    delete process.env.WORKSPACE_ROOT;
    delete process.env.EGRESS_HOSTS;
    removeWorkspaceRoot(workspaceRoot);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await drop?.();
  });

  async function codingSession(user: User) {
    const { createChatSession } = await import("@/lib/runs/sessions");
    const { changeSessionMode } = await import("@/lib/sessions/access");
    const session = await createChatSession({ user });
    await changeSessionMode({ user, sessionId: session.id, mode: "coding" });
    return session.id;
  }

  async function exec(user: User, sessionId: string, command: string) {
    const { startChatTurn } = await import("@/lib/runs/host");
    const turn = await startChatTurn({ user, sessionId, text: `/tool exec ${JSON.stringify({ command })}` });
    const reader = turn.stream.getReader();
    while (!(await reader.read()).done) {
      // drain
    }
    const result = await turn.done;
    const row = (
      (await db.message.findMany({
        where: { sessionId, role: "tool" },
        orderBy: { seq: "desc" },
        take: 1,
      })) as unknown as ToolRow[]
    )[0]!;
    return { status: result.status, output: row.parts?.output, callStatus: row.parts?.status };
  }

  const get = (host: string) => `curl -s -m 10 -w ' %{http_code}' http://${host}:${port}/x`;
  const domainApprovals = (requesterId: string, pattern?: string) =>
    db.approval.findMany({
      where: { requesterId, kind: "domain", ...(pattern ? { command: pattern } : {}) },
      orderBy: { createdAt: "asc" },
    });

  async function decide(
    approvalId: string,
    decision: "allow-once" | "allow-always" | "deny",
    grant?: { scope: "user" | "team" | "everyone"; expiresInHours?: number },
  ) {
    const { decideApproval } = await import("@/lib/approvals/service");
    return decideApproval({ approvalId, ownerId: admin.id, decision, ...(grant ? { grant } : {}) });
  }

  it("a listed domain answers with no owner; plain POST to it is refused (read-only) without asking", async () => {
    const sessionId = await codingSession(member);
    const r = await exec(
      member,
      sessionId,
      `${get("registry.test")}; curl -s -o /dev/null -m 10 -w ' %{http_code}' -X POST -d x http://registry.test:${port}/x`,
    );
    expect(r).toMatchObject({ status: "completed", callStatus: "ok" });
    expect(r.output?.stdout).toBe("hello from registry.test 200 403");
    expect(r.output?.network?.reached).toEqual(["registry.test"]);
    expect(r.output?.network?.approvals).toEqual([]);
    expect(await domainApprovals(member.id)).toHaveLength(0);
  });

  it("an unlisted domain is refused at once, becomes one domain approval naming it, and the refused call is never re-run", async () => {
    const sessionId = await codingSession(member);
    const before = hits.length;
    const r = await exec(member, sessionId, `${get("mirror.test")}; ${get("mirror.test")}`);
    // The command finished (with 403s) instead of waiting for an owner.
    expect(r).toMatchObject({ status: "completed", callStatus: "ok" });
    expect(r.output?.stdout).toMatch(/ 403.* 403$/s);
    const rows = await domainApprovals(member.id, `mirror.test:${port}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: "pending", toolName: "exec", sessionId, runId: null });
    expect(rows[0]?.reason).toMatch(/mirror\.test:\d+.*not on the network allowlist/);
    expect(r.output?.network?.approvals).toEqual([{ domain: `mirror.test:${port}`, approvalId: rows[0]!.id }]);
    expect(r.output?.network?.note).toContain(rows[0]!.id);
    // A second command trying it while the request is pending asks no second time.
    const again = await exec(member, sessionId, get("mirror.test"));
    expect(again.output?.network?.approvals).toEqual([
      { domain: `mirror.test:${port}`, approvalId: rows[0]!.id, note: expect.stringMatching(/already asked/) },
    ]);
    expect(await domainApprovals(member.id, `mirror.test:${port}`)).toHaveLength(1);
    await decide(rows[0]!.id, "allow-once");
    // Nothing re-runs on the decision: the server saw no request from the refused calls, and none after.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hits.slice(before)).toEqual([]);
    const messages = await db.message.count({ where: { sessionId, role: "tool" } });
    expect(messages).toBe(2);
  });

  it("allow once opens the domain for the member's next command only", async () => {
    const sessionId = await codingSession(member);
    await exec(member, sessionId, get("once.test"));
    const [asked] = await domainApprovals(member.id, `once.test:${port}`);
    await decide(asked!.id, "allow-once");
    const next = await exec(member, sessionId, `${get("once.test")}; ${get("once.test")}`);
    expect(next.output?.stdout).toBe("hello from once.test 200hello from once.test 200");
    const after = await exec(member, sessionId, get("once.test"));
    expect(after.output?.stdout).toMatch(/ 403$/);
    expect((await domainApprovals(member.id, `once.test:${port}`)).map((a) => a.status)).toEqual([
      "approved",
      "pending",
    ]);
  });

  it("one allow-once is used by one command even when two of the member's commands start together", async () => {
    const [first, second] = await Promise.all([codingSession(member), codingSession(member)]);
    await exec(member, first, get("mirror.test"));
    const pending = await domainApprovals(member.id, `mirror.test:${port}`);
    const open = pending.find((a) => a.status === "pending");
    await decide(open!.id, "allow-once");
    const results = await Promise.all([
      exec(member, first, get("mirror.test")),
      exec(member, second, get("mirror.test")),
    ]);
    expect(results.map((r) => r.output?.stdout?.endsWith(" 200")).sort()).toEqual([false, true]);
  });

  it("allow always for this user is that member's alone: another member is refused and asked for themselves", async () => {
    const mine = await codingSession(member);
    await exec(member, mine, get("always.test"));
    const [asked] = await domainApprovals(member.id, `always.test:${port}`);
    const outcome = await decide(asked!.id, "allow-always", { scope: "user", expiresInHours: 1 });
    expect(outcome.allowlisted).toEqual([`always.test:${port}`]);
    const grant = await db.allowlistEntry.findFirst({ where: { kind: "domain", pattern: `always.test:${port}` } });
    expect(grant).toMatchObject({ scope: "user", scopeId: member.id });
    expect(grant?.expiresAt).not.toBeNull();
    for (let i = 0; i < 2; i++)
      expect((await exec(member, mine, get("always.test"))).output?.stdout).toBe("hello from always.test 200");

    const theirs = await codingSession(other);
    const r = await exec(other, theirs, get("always.test"));
    expect(r.output?.stdout).toMatch(/ 403$/);
    expect(await domainApprovals(other.id, `always.test:${port}`)).toHaveLength(1);
    // The grant expires: past its expiry the member is refused again.
    await db.allowlistEntry.update({ where: { id: grant!.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    expect((await exec(member, mine, get("always.test"))).output?.stdout).toMatch(/ 403$/);
  });

  it("one command trying eight unlisted hosts asks for at most three; an exhausted approval budget asks for none", async () => {
    const sessionId = await codingSession(other);
    const r = await exec(
      other,
      sessionId,
      HOSTS.filter((h) => h.startsWith("many"))
        .slice(0, 8)
        .map(get)
        .join("; "),
    );
    const made = r.output?.network?.approvals.filter((a) => a.approvalId !== null) ?? [];
    expect(made).toHaveLength(3);
    expect(r.output?.network?.approvals.filter((a) => a.approvalId === null)).toHaveLength(5);
    expect((await domainApprovals(other.id)).filter((a) => a.command?.startsWith("many"))).toHaveLength(3);

    // Spend the member's approval budget (APPROVAL_REQUESTS_PER_MINUTE) the way POST /api/approvals would.
    const { consumeUserQuota } = await import("@/lib/auth/throttle");
    for (let i = 0; i < 100; i++) {
      const spent = await consumeUserQuota("approvals", other.id).then(
        () => false,
        () => true,
      );
      if (spent) break;
    }
    const late = await exec(other, sessionId, get("team.test"));
    expect(late.output?.network?.approvals).toEqual([
      { domain: `team.test:${port}`, approvalId: null, note: expect.stringMatching(/too many approval requests/) },
    ]);
    expect(await domainApprovals(other.id, `team.test:${port}`)).toHaveLength(0);
  });

  it("a host-execution escalation's card names the workspace files that would run as code on the host", async () => {
    const team = await db.team.create({ data: { id: `ops-${Date.now()}`, name: "ops" } });
    await db.teamMember.create({ data: { teamId: team.id, userId: member.id } });
    const users = await import("@/lib/db/users");
    const withTeam = (await users.getUserWithRoles({ userId: member.id }))!;
    const latest = await db.policyVersion.findFirstOrThrow({ orderBy: { version: "desc" } });
    const document = latest.document as { exec: Record<string, unknown> };
    await db.policyVersion.create({
      data: {
        version: latest.version + 1,
        comment: "host",
        document: { ...document, exec: { ...document.exec, host: { teams: [team.id] } } } as never,
      },
    });
    const workspace = path.join(workspaceRoot, member.id);
    fs.mkdirSync(path.join(workspace, "web"), { recursive: true });
    fs.writeFileSync(path.join(workspace, "Makefile"), "all:\n\ttrue\n");
    fs.writeFileSync(
      path.join(workspace, "web", "package.json"),
      JSON.stringify({ scripts: { test: "node evil.js" } }),
    );
    fs.writeFileSync(path.join(workspace, ".gitattributes"), "* filter=x\n");
    try {
      const sessionId = await codingSession(withTeam);
      const r = await exec(withTeam, sessionId, "make");
      expect(r.status).toBe("waiting_approval");
      const approval = await db.approval.findFirstOrThrow({ where: { sessionId, kind: "exec" } });
      expect(approval.reason).toMatch(
        /would run on the host.*workspace files can run as code: .*Makefile \(make\).*web\/package\.json \(scripts/s,
      );
      expect(approval.reason).toContain(".gitattributes (git filter/diff/merge drivers)");
    } finally {
      await db.teamMember.deleteMany({ where: { teamId: team.id } });
      await db.policyVersion.create({
        data: { version: latest.version + 2, comment: "no host", document: latest.document as never },
      });
    }
  });
});
