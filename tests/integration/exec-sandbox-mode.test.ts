// Issue 28, exec security mode `sandbox`: through the chat with the offline model (`/tool exec {...}` lines), a
// member's commands run in the sandbox without an owner whatever their shell syntax (a listing, a pipe, sh -c, a
// script the member wrote), and nothing outside the workspace is written. Host execution stays an escalation. On
// SQLite, and PostgreSQL when configured; skipped with the reason only when bwrap cannot start here.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, prepareDatabase, resetEventBus } from "../support/databases";
import { probeSandbox } from "@/lib/tools/sandbox";

const probe = await probeSandbox();
if (!probe.ok) console.warn(`[exec sandbox mode tests] skipped: bwrap cannot start here (${probe.reason})`);

type Changes = import("@/lib/tools/workspace-changes").CommandChanges;
type ToolRow = {
  toolName: string | null;
  parts: {
    status?: string;
    output?: {
      exitCode?: number;
      stdout?: string;
      stderr?: string;
      pending?: boolean;
      reason?: string;
      changes?: Changes | null;
      error_code?: string;
    };
  } | null;
};

describe.skipIf(!probe.ok).each(databaseTargets())("exec in sandbox mode (%s)", (_kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let db: import("@/lib/db/client").Db;
  let workspaceRoot: string;
  let member: import("@/lib/auth/guards").CurrentUser;
  let workspace: string;
  const outside = path.join(os.tmpdir(), `toolgate-outside-${process.pid}-${Date.now()}`);

  async function storePolicy(document: unknown) {
    const last = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
    await db.policyVersion.create({
      data: { version: (last?.version ?? 0) + 1, document: document as never, comment: "exec sandbox mode test" },
    });
  }

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
    process.env.DATABASE_URL = target.url;
    process.env.WORKSPACE_ROOT = workspaceRoot;
    process.env.EVENT_POLL_MS = "600000";
    resetEventBus();
    db = (await import("@/lib/db/client")).createDb(target.url);
    const users = await import("@/lib/db/users");
    member = (await users.getUserWithRoles({
      userId: (await users.findUserByEmail({ email: "member@example.com" }))!.id,
    }))!;
    workspace = path.join(workspaceRoot, member.id);
    // A new install's policy (version 2, no exec mode named: sandbox) that grants this member coding.
    await storePolicy({ version: 2, modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } } });
  });

  afterAll(async () => {
    await db?.$disconnect();
    vi.resetModules();
    // The tool registry lives on globalThis: the next target's fresh modules must not run this one's tools (their
    // AppError class would be another module's, and an error code would read as an internal error).
    delete (globalThis as { toolgateRegistry?: unknown }).toolgateRegistry;
    delete process.env.WORKSPACE_ROOT;
    fs.rmSync(outside, { recursive: true, force: true });
    await drop?.();
  });

  async function codingSession() {
    const { createChatSession } = await import("@/lib/runs/sessions");
    const { changeSessionMode } = await import("@/lib/sessions/access");
    const session = await createChatSession({ user: member });
    await changeSessionMode({ user: member, sessionId: session.id, mode: "coding" });
    return session.id;
  }

  /** One turn with one `/tool` line; returns the run's status and the call's stored result. */
  async function call(sessionId: string, tool: string, input: unknown) {
    const { startChatTurn } = await import("@/lib/runs/host");
    const turn = await startChatTurn({ user: member, sessionId, text: `/tool ${tool} ${JSON.stringify(input)}` });
    const reader = turn.stream.getReader();
    while (!(await reader.read()).done) {
      // drain
    }
    const result = await turn.done;
    const rows = (await db.message.findMany({
      where: { sessionId, role: "tool" },
      orderBy: { seq: "desc" },
      take: 1,
    })) as unknown as ToolRow[];
    const approvals = await db.approval.count({ where: { runId: result.runId } });
    return { status: result.status, approvals, row: rows[0]! };
  }

  it("ls -la, a pipe, sh -c and a script the member wrote all run without an approval; the audit names the mode", async () => {
    const sessionId = await codingSession();
    fs.mkdirSync(workspace, { recursive: true });
    const wrote = await call(sessionId, "write", { path: "notes.md", content: "v1 first\nv2 second\nv1 third\n" });
    expect(wrote.row.parts?.status).toBe("ok");
    const script = await call(sessionId, "write", {
      path: "build.sh",
      content: "#!/bin/sh\necho built > build.out\nwc -l < notes.md\n",
    });
    expect(script.row.parts?.status).toBe("ok");

    const cases: Array<[string, (stdout: string) => void]> = [
      ["ls -la", (out) => expect(out).toMatch(/notes\.md/)],
      ["cat notes.md | grep v1", (out) => expect(out).toBe("v1 first\nv1 third\n")],
      [`sh -c 'grep -c v2 notes.md; echo "$(whoami)"'`, (out) => expect(out).toBe("1\nnobody\n")],
      ["chmod +x build.sh && ./build.sh && cat build.out", (out) => expect(out).toBe("3\nbuilt\n")],
      ["eval 'for f in *.md; do echo $f; done'", (out) => expect(out).toBe("notes.md\n")],
      // Plain git diff works in sandbox mode (an emptied diff.external made it die with "external diff died").
      [
        "git init -q && git add notes.md && git -c user.email=m@example.com -c user.name=m commit -qm one && echo v3 >> notes.md && git diff --stat",
        (out) => expect(out).toMatch(/notes\.md \| 1 \+/),
      ],
    ];
    for (const [command, check] of cases) {
      const { status, approvals, row } = await call(sessionId, "exec", { command });
      expect({ command, status, approvals, callStatus: row.parts?.status }).toEqual({
        command,
        status: "completed",
        approvals: 0,
        callStatus: "ok",
      });
      expect(row.parts?.output?.exitCode, `${command}: ${row.parts?.output?.stderr}`).toBe(0);
      check(row.parts?.output?.stdout ?? "");
    }
    const audit = await db.auditLog.findMany({
      where: { action: "tool.call", sessionId, toolName: "exec", decision: "allow" },
    });
    expect(audit).toHaveLength(cases.length);
    for (const row of audit)
      expect(row.details as { reason?: string; execution?: string }).toMatchObject({
        reason: expect.stringMatching(/^sandbox mode: runs in the sandbox/),
        execution: "sandbox",
      });
  });

  it("nothing outside the workspace is written, whatever the command tries", async () => {
    const sessionId = await codingSession();
    const parent = path.dirname(workspace);
    const before = fs.readdirSync(parent).sort();
    const command = [
      `mkdir -p ${outside} 2>/dev/null; echo x > ${outside}/marker 2>/dev/null`,
      "touch ../escape 2>/dev/null",
      "echo x > /etc/toolgate-escape 2>/dev/null",
      `sh -c 'cd /; for d in usr etc var opt root home; do touch /$d/toolgate-escape 2>/dev/null && echo wrote $d; done'`,
      "echo inside > inside.txt",
      "echo done",
    ].join("; ");
    const { status, approvals, row } = await call(sessionId, "exec", { command });
    expect({ status, approvals }).toEqual({ status: "completed", approvals: 0 });
    expect(row.parts?.output?.stdout).toBe("done\n");
    expect(fs.existsSync(outside)).toBe(false);
    expect(fs.readdirSync(parent).sort()).toEqual(before);
    for (const dir of ["/etc", "/usr", "/var", "/opt", "/root", "/home"])
      expect(fs.existsSync(`${dir}/toolgate-escape`)).toBe(false);
    expect(fs.readFileSync(path.join(workspace, "inside.txt"), "utf8")).toBe("inside\n");
  });

  it("each command's changes are listed with sizes; what it deleted or overwrote is restored (rm -rf dir, then restore)", async () => {
    const sessionId = await codingSession();
    const made = await call(sessionId, "exec", {
      command:
        "mkdir -p dir/sub && printf 'abc' > dir/a.txt && printf 'hello' > dir/sub/b.txt && printf 'keep' > kept.txt",
    });
    const first = made.row.parts?.output?.changes;
    expect(first?.counts).toEqual({ created: 2, changed: 0, deleted: 0 });
    expect(first?.created).toEqual(
      expect.arrayContaining([
        { path: "dir", kind: "directory", size: 8 },
        { path: "kept.txt", kind: "file", size: 4 },
      ]),
    );
    expect(first?.restoreId).toBeNull();

    const removed = await call(sessionId, "exec", {
      command: "rm -rf dir && printf 'changed!' > kept.txt && echo new > fresh.txt",
    });
    const changes = removed.row.parts?.output?.changes;
    expect(changes?.deleted).toEqual([{ path: "dir", kind: "directory", size: 8 }]);
    expect(changes?.changed).toEqual([{ path: "kept.txt", kind: "file", size: 8, previousSize: 4 }]);
    expect(changes?.created).toEqual([{ path: "fresh.txt", kind: "file", size: 4 }]);
    expect(fs.existsSync(path.join(workspace, "dir"))).toBe(false);
    expect(fs.readFileSync(path.join(workspace, "kept.txt"), "utf8")).toBe("changed!");

    const { restoreCommand, listRestorable } = await import("@/lib/tools/workspace-changes");
    const { listOwnRestorable, restoreOwnCommand } = await import("@/lib/tools/workspace-restore");
    expect((await listRestorable(workspace)).map((r) => r.restoreId)).toContain(changes!.restoreId);
    expect((await listOwnRestorable({ userId: member.id }))[0]).toMatchObject({
      restoreId: changes!.restoreId,
      deleted: [{ path: "dir" }],
    });
    // Another member has no such trash: the id is only ever looked up in the caller's own workspace.
    await expect(restoreOwnCommand({ userId: "someone-else", restoreId: changes!.restoreId! })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    const restored = await restoreOwnCommand({ userId: member.id, restoreId: changes!.restoreId! });
    expect(restored.restored.sort()).toEqual(["dir", "kept.txt"]);
    expect(restored.skipped).toEqual([]);
    expect(fs.readFileSync(path.join(workspace, "dir/a.txt"), "utf8")).toBe("abc");
    expect(fs.readFileSync(path.join(workspace, "dir/sub/b.txt"), "utf8")).toBe("hello");
    expect(fs.readFileSync(path.join(workspace, "kept.txt"), "utf8")).toBe("keep");
    // The version the restore displaced is itself restorable: nothing is lost either way.
    await restoreCommand(workspace, restored.restoreId!);
    expect(fs.readFileSync(path.join(workspace, "kept.txt"), "utf8")).toBe("changed!");
    // A forged id never names anything outside the trash.
    await expect(restoreCommand(workspace, "../../etc")).rejects.toThrow(/restore id/);
    // The restored files are still the workspace owner's, so the next command can change them.
    const again = await call(sessionId, "exec", { command: "rm dir/a.txt && echo ok" });
    expect(again.row.parts?.output?.stdout).toBe("ok\n");
  });

  it("a restore never follows a link a later command put where a directory was (the server moves files as root)", async () => {
    const sessionId = await codingSession();
    const target = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-restore-target-"));
    fs.writeFileSync(path.join(target, "victim.txt"), "host file");
    try {
      await call(sessionId, "exec", { command: "mkdir -p nest && echo mine > nest/victim.txt" });
      const removed = await call(sessionId, "exec", { command: "echo overwritten > nest/victim.txt" });
      const restoreId = removed.row.parts?.output?.changes?.restoreId;
      expect(restoreId).toBeTruthy();
      // The member swaps the directory for a link to a host directory, then asks for the restore.
      fs.chmodSync(target, 0o777);
      const swapped = await call(sessionId, "exec", { command: `rm -rf nest && ln -s ${target} nest && echo swapped` });
      expect(swapped.row.parts?.output?.stdout).toBe("swapped\n");
      const { restoreOwnCommand } = await import("@/lib/tools/workspace-restore");
      const result = await restoreOwnCommand({ userId: member.id, restoreId: restoreId! });
      expect(result).toMatchObject({ restored: [], skipped: ["nest/victim.txt"] });
      expect(fs.readFileSync(path.join(target, "victim.txt"), "utf8")).toBe("host file");
      expect(fs.readdirSync(target)).toEqual(["victim.txt"]);
    } finally {
      fs.rmSync(target, { recursive: true, force: true });
    }
  });

  it("a command that passes the quota is stopped and nothing it wrote is kept", async () => {
    await storePolicy({
      version: 2,
      modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } },
      exec: { workspaceQuotaBytes: 2 * 1024 * 1024 },
    });
    try {
      const sessionId = await codingSession();
      const { row } = await call(sessionId, "exec", {
        command: "for i in $(seq 1 40); do head -c 262144 /dev/zero > big-$i.bin; sleep 0.1; done",
      });
      expect(row.parts?.output?.error_code, JSON.stringify(row.parts?.output)).toBe("LIMIT_EXCEEDED");
      expect(fs.readdirSync(workspace).filter((n) => n.startsWith("big-"))).toEqual([]);
    } finally {
      await storePolicy({ version: 2, modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } } });
    }
  });

  it("limits per member: one member's memory hog and fork bomb do not stop another member's command (control groups)", async () => {
    const { limitMechanism } = await import("@/lib/tools/cgroups");
    const mechanism = await limitMechanism();
    if (mechanism.kind === "rlimits")
      return void console.warn(`[exec sandbox mode tests] member limits: ${mechanism.detail}`);
    const users = await import("@/lib/db/users");
    const other = (await users.getUserWithRoles({
      userId: (await users.findUserByEmail({ email: "owner@example.com" }))!.id,
    }))!;
    // Scaled down so that it cannot endanger a shared two-core machine: 48 MiB, 24 processes, half a core.
    await storePolicy({
      version: 2,
      modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } },
      exec: { memberMemoryBytes: 48 * 1024 * 1024, memberProcesses: 24, memberCpuPercent: 50 },
    });
    try {
      const hogSession = await codingSession();
      const { createChatSession } = await import("@/lib/runs/sessions");
      const { changeSessionMode } = await import("@/lib/sessions/access");
      const otherSession = (await createChatSession({ user: other })).id;
      await changeSessionMode({ user: other, sessionId: otherSession, mode: "coding" });
      const asOther = async (command: string) => {
        const { startChatTurn } = await import("@/lib/runs/host");
        const turn = await startChatTurn({
          user: other,
          sessionId: otherSession,
          text: `/tool exec ${JSON.stringify({ command })}`,
        });
        const reader = turn.stream.getReader();
        while (!(await reader.read()).done) {
          // drain
        }
        await turn.done;
        const rows = (await db.message.findMany({
          where: { sessionId: otherSession, role: "tool" },
          orderBy: { seq: "desc" },
          take: 1,
        })) as unknown as ToolRow[];
        return rows[0]!.parts?.output;
      };

      // 120 MB in one shell variable: within the per-process address-space limit (1 GiB), over the member's 48 MiB.
      const hog = call(hogSession, "exec", { command: `x=$(head -c 120000000 /dev/zero | tr '\\0' a); echo "\${#x}"` });
      const during = await asOther("echo still-here");
      const hogged = await hog;
      expect(during?.stdout).toBe("still-here\n");
      // Killed by the member's memory limit (without the group it prints 120000000).
      expect(hogged.row.parts?.output?.stdout ?? "").not.toContain("120000000");
      expect(hogged.row.parts?.output?.exitCode).not.toBe(0);

      // A fork bomb for five seconds: the member's 24 processes run out, the other member's command still runs.
      const bomb = call(hogSession, "exec", {
        command: "b() { b | b & }; b; sleep 5; echo bomb-done",
        timeoutMs: 8000,
      } as never);
      await new Promise((r) => setTimeout(r, 1500));
      const started = Date.now();
      const meanwhile = await asOther("echo fine && ls / | wc -l");
      const tookMs = Date.now() - started;
      await bomb;
      expect(meanwhile?.stdout).toMatch(/^fine\n\d+\n$/);
      // Generous: the point is that it ran at all, not how fast (BENCHMARKS.md has the ratio).
      expect(tookMs).toBeLessThan(30_000);
    } finally {
      await storePolicy({ version: 2, modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } } });
    }
  });

  it("host execution is an escalation in sandbox mode: it waits for an owner, and an expired one is denied whatever askFallback says", async () => {
    const team = await db.team.create({ data: { id: `ops-${Date.now()}`, name: "ops" } });
    await db.teamMember.create({ data: { teamId: team.id, userId: member.id } });
    const users = await import("@/lib/db/users");
    const plain = member;
    member = (await users.getUserWithRoles({ userId: member.id }))!;
    await storePolicy({
      version: 2,
      modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } },
      exec: { askFallback: "full", host: { teams: [team.id] } },
    });
    try {
      const sessionId = await codingSession();
      const { status, approvals, row } = await call(sessionId, "exec", { command: "ls -la" });
      expect({ status, approvals }).toEqual({ status: "waiting_approval", approvals: 1 });
      expect(row.parts?.output?.reason).toMatch(
        /^sandbox mode: the command would run on the host \(exec\.host\.teams: /,
      );
      // The request expires: the resume path denies it although askFallback is "full".
      const approval = await db.approval.findFirstOrThrow({ where: { sessionId } });
      await db.approval.update({ where: { id: approval.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
      const { sweepExpiredApprovals } = await import("@/lib/approvals/service");
      expect((await sweepExpiredApprovals()).map((a) => a.id)).toContain(approval.id);
      const { resumeRun } = await import("@/lib/runs/resume");
      await resumeRun({ runId: approval.runId! });
      const deadline = Date.now() + 20_000;
      while (
        ["running", "waiting_approval"].includes(
          (await db.agentRun.findUniqueOrThrow({ where: { id: approval.runId! } })).status,
        ) &&
        Date.now() < deadline
      ) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const settled = (await db.message.findFirstOrThrow({
        where: { sessionId, role: "tool", toolCallId: approval.callId },
      })) as unknown as ToolRow;
      expect(settled.parts).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_EXPIRED" } });
      expect(await db.auditLog.count({ where: { action: "tool.call", sessionId, decision: "allow" } })).toBe(0);
    } finally {
      member = plain;
      await db.teamMember.deleteMany({ where: { teamId: team.id } });
      await storePolicy({ version: 2, modeGrants: { users: { [member.id]: ["chat_safe", "coding"] } } });
    }
  });
});
