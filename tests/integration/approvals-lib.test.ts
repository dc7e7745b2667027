// The approval store and the resume path, called directly on a fresh database (SQLite, and PostgreSQL when
// configured): idempotent registration (also concurrent), exactly-once resolve and consume, expiry, and an
// allow-once that cannot be replayed even when the run is forced back to waiting and resumed again.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseTargets, prepareDatabase, resetEventBus, storeVersionOnePolicy } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("approvals store and resume (%s)", (kind, make) => {
  let drop: (() => Promise<void>) | undefined;
  let db: import("@/lib/db/client").Db;
  let store: typeof import("@/lib/db/approvals");
  let service: typeof import("@/lib/approvals/service");
  let rules: typeof import("@/lib/approvals/rules");
  let workspaceRoot: string;
  let owner: import("@/lib/auth/guards").CurrentUser;

  beforeAll(async () => {
    const target = await make();
    drop = target.drop;
    prepareDatabase(target.url);
    // Written for allowlist mode's approvals: an install upgraded from before sandbox mode.
    await storeVersionOnePolicy(target.url);
    workspaceRoot = fs.mkdtempSync(path.join(os.tmpdir(), "toolgate-ws-"));
    process.env.DATABASE_URL = target.url;
    process.env.WORKSPACE_ROOT = workspaceRoot;
    // These cases test the store's exactly-once mechanics with one owner; four eyes is tested over HTTP.
    process.env.APPROVALS_SELF_DECISION = "allow";
    // No safety poll during these cases: every wake-up they see comes from a publish or a NOTIFY.
    process.env.EVENT_POLL_MS = "600000";
    // The event tailer is a per-process singleton on globalThis: the previous target's one would tail its database.
    resetEventBus();
    store = await import("@/lib/db/approvals");
    service = await import("@/lib/approvals/service");
    rules = await import("@/lib/approvals/rules");
    db = (await import("@/lib/db/client")).createDb(target.url);
    const users = await import("@/lib/db/users");
    owner = (await users.getUserWithRoles({
      userId: (await users.findUserByEmail({ email: "owner@example.com" }))!.id,
    }))!;
  });

  afterAll(async () => {
    await db?.$disconnect();
    vi.resetModules();
    delete process.env.WORKSPACE_ROOT;
    delete process.env.APPROVALS_SELF_DECISION;
    await drop?.();
  });

  async function newSession() {
    const { createChatSession } = await import("@/lib/runs/sessions");
    return createChatSession({ user: owner });
  }

  const base = (sessionId: string, callId: string, args: unknown = { command: "rm -rf data" }) => ({
    kind: "exec" as const,
    sessionId,
    requesterId: owner.id,
    toolName: "exec",
    callId,
    argsHash: rules.hashArguments("exec", args),
    args,
    command: (args as { command?: string }).command ?? null,
    reason: "test",
    expiresAt: new Date(Date.now() + 60_000),
  });

  it("P17 registering the same call twice (also 20 at once) returns the same pending request", async () => {
    const session = await newSession();
    const first = await store.registerApproval(base(session.id, "c1"));
    const second = await store.registerApproval({ ...base(session.id, "c1"), reason: "other" });
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false, approval: { id: first.approval.id, reason: "test" } });
    const many = await Promise.all(Array.from({ length: 20 }, () => store.registerApproval(base(session.id, "c2"))));
    expect(new Set(many.map((m) => m.approval.id)).size).toBe(1);
    expect(many.filter((m) => m.created)).toHaveLength(1);
    // Through the service, the audit and the event happen once too.
    const viaService = await Promise.all(
      Array.from({ length: 5 }, () => service.requestApproval({ ...base(session.id, "c3"), ttlMs: 60_000 })),
    );
    expect(new Set(viaService.map((v) => v.approval.id)).size).toBe(1);
    expect(await db.auditLog.count({ where: { action: "approval.requested", callId: "c3" } })).toBe(1);
    expect(await db.eventLog.count({ where: { type: "approval.requested", sessionId: session.id } })).toBe(1);
  });

  it("P21/P22/P23 resolve is exactly-once (a second resolve returns null, 30 concurrent: one wins), consume is exactly-once", async () => {
    const session = await newSession();
    const { approval } = await store.registerApproval(base(session.id, "r1"));
    const won = await store.resolveApprovalRow({
      id: approval.id,
      decision: "allow-once",
      resolvedById: owner.id,
      reason: "ok",
    });
    expect(await store.resolveApprovalRow({ id: approval.id, decision: "deny", resolvedById: owner.id })).toBeNull();
    // The winner is told exactly what the row now holds (the decision path builds its event from it, not a re-read).
    const stored = (await store.findApproval({ id: approval.id }))!;
    expect(won).toEqual({
      status: stored.status,
      decision: stored.decision,
      resolvedAt: stored.resolvedAt,
      resolvedById: stored.resolvedById,
      resolveReason: stored.resolveReason,
      resolvedVia: stored.resolvedVia,
    });
    expect(stored).toMatchObject({ status: "approved", decision: "allow-once", resolveReason: "ok" });
    // Waiting after the decision, however late, still returns it (the record stays; no grace window to miss).
    expect(await service.waitForDecision({ approvalId: approval.id, timeoutMs: 5_000 })).toEqual({
      status: "approved",
      decision: "allow-once",
      resolvedAt: stored.resolvedAt,
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => store.consumeApproval({ id: approval.id })));
    expect(results.filter(Boolean)).toHaveLength(1);
    const { approval: other } = await store.registerApproval(base(session.id, "r2"));
    const race = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.resolveApprovalRow({ id: other.id, decision: i % 2 ? "deny" : "allow-once", resolvedById: owner.id }),
      ),
    );
    expect(race.filter(Boolean)).toHaveLength(1);
    // A denied approval can never be consumed.
    const { approval: denied } = await store.registerApproval(base(session.id, "r3"));
    await store.resolveApprovalRow({ id: denied.id, decision: "deny", resolvedById: owner.id });
    expect(await store.consumeApproval({ id: denied.id })).toBe(false);
  });

  it("P18/P24 expiry: a due approval becomes expired once (sweep), cannot be resolved, and waitForDecision answers expired", async () => {
    const session = await newSession();
    const { approval } = await store.registerApproval({
      ...base(session.id, "e1"),
      expiresAt: new Date(Date.now() - 1),
    });
    // Past its time but not swept yet: already undecidable, and the long-poll does not hang.
    expect(
      await store.resolveApprovalRow({ id: approval.id, decision: "allow-once", resolvedById: owner.id }),
    ).toBeNull();
    expect(await service.waitForDecision({ approvalId: approval.id, timeoutMs: 5_000 })).toMatchObject({
      status: "expired",
      decision: null,
    });
    const swept = await Promise.all([service.sweepExpiredApprovals(), service.sweepExpiredApprovals()]);
    expect(swept.flat().filter((a) => a.id === approval.id)).toHaveLength(1);
    expect(await db.auditLog.count({ where: { action: "approval.expired", callId: "e1" } })).toBe(1);
    expect((await store.findApproval({ id: approval.id }))!.status).toBe("expired");
    await expect(
      service.decideApproval({ approvalId: approval.id, ownerId: owner.id, decision: "deny" }),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    // And a pending one times out with null.
    const { approval: open } = await store.registerApproval(base(session.id, "e2"));
    const t0 = Date.now();
    expect(await service.waitForDecision({ approvalId: open.id, timeoutMs: 300 })).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
    // Waiting on a request that does not exist is an error, not a wait.
    await expect(service.waitForDecision({ approvalId: "no-such-approval", timeoutMs: 5_000 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });

  it("P29 allow-once is consumed by exactly one execution: forcing the run back to waiting and resuming again is refused", async () => {
    const { changeSessionMode } = await import("@/lib/sessions/access");
    const { startChatTurn } = await import("@/lib/runs/host");
    const { resumeRun } = await import("@/lib/runs/resume");
    const session = await newSession();
    await changeSessionMode({ user: owner, sessionId: session.id, mode: "coding" });
    const turn = await startChatTurn({
      user: owner,
      sessionId: session.id,
      text: `/tool exec ${JSON.stringify({ command: "echo once >> replay.txt" })}`,
    });
    const reader = turn.stream.getReader();
    while (!(await reader.read()).done) {
      // drain
    }
    const result = await turn.done;
    expect(result.status).toBe("waiting_approval");
    const approval = (await store.listRunApprovals({ runId: result.runId }))[0]!;
    await service.decideApproval({ approvalId: approval.id, ownerId: owner.id, decision: "allow-once" });
    // Two instances resuming at once: one claim wins.
    const resumed = await Promise.all([resumeRun({ runId: result.runId }), resumeRun({ runId: result.runId })]);
    expect(resumed.filter(Boolean)).toHaveLength(1);
    const marker = path.join(workspaceRoot, owner.id, "replay.txt");
    expect(fs.readFileSync(marker, "utf8")).toBe("once\n");

    // Replay: someone puts the run back to waiting and the call back to pending.
    const tool = await db.message.findFirstOrThrow({
      where: { sessionId: session.id, role: "tool", toolCallId: approval.callId },
    });
    await db.message.update({
      where: { id: tool.id },
      data: { parts: { status: "pending", output: { pending: true } } as never },
    });
    await db.agentRun.update({ where: { id: result.runId }, data: { status: "waiting_approval" } });
    await resumeRun({ runId: result.runId });
    expect(fs.readFileSync(marker, "utf8")).toBe("once\n");
    const after = await db.message.findFirstOrThrow({ where: { id: tool.id } });
    expect(after.parts).toMatchObject({ status: "denied", output: { error_code: "APPROVAL_DENIED" } });
    expect((after.parts as { output: { message: string } }).output.message).toMatch(/already used/);
    expect(
      await db.auditLog.count({ where: { action: "tool.call", callId: approval.callId, decision: "allow" } }),
    ).toBe(1);
  });

  it("a decision made while the run is still busy with another call of the same step still resumes it (no worker here)", async () => {
    const { changeSessionMode } = await import("@/lib/sessions/access");
    const { startChatTurn } = await import("@/lib/runs/host");
    const { resumeRun } = await import("@/lib/runs/resume");
    const { createGrant } = await import("@/lib/db/allowlist");
    await createGrant({
      kind: "exec",
      pattern: "sleep *",
      words: ["sleep"],
      prefix: true,
      scope: "user",
      scopeId: owner.id,
      createdById: owner.id,
    });
    try {
      const session = await newSession();
      await changeSessionMode({ user: owner, sessionId: session.id, mode: "coding" });
      // Two calls in one step: the first needs approval, the second (allowlisted) keeps the run busy for 2 s.
      const text = [
        `/tool exec ${JSON.stringify({ command: "rm -rf busy" })}`,
        `/tool exec ${JSON.stringify({ command: "sleep 2" })}`,
      ].join("\n");
      const turn = await startChatTurn({ user: owner, sessionId: session.id, text });
      const reader = turn.stream.getReader();
      let early: Promise<unknown> | null = null;
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (value.type === "data-approval_pending" && !early) {
          const approvalId = (value as { data: { approvalId: string } }).data.approvalId;
          // Decided and resumed the way the decision route does it, while the sleep still runs.
          early = service
            .decideApproval({ approvalId, ownerId: owner.id, decision: "deny" })
            .then((o) => resumeRun({ runId: o.approval.runId! }));
          expect(await early).toBeNull(); // the run was still running: nothing to resume yet
        }
      }
      const result = await turn.done;
      expect(result.status).toBe("waiting_approval");
      const deadline = Date.now() + 10_000;
      let status = "";
      while (Date.now() < deadline) {
        status = (await db.agentRun.findUniqueOrThrow({ where: { id: result.runId } })).status;
        if (status === "completed") break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(status).toBe("completed");
    } finally {
      await db.allowlistEntry.deleteMany({ where: { pattern: "sleep *" } });
    }
  });

  it("allow-always: the grant commits with the decision or neither does; two decisions storing the same rule store it once", async () => {
    const session = await newSession();
    const command = "git log --oneline";
    const { approval } = await service.requestApproval({ ...base(session.id, "g1", { command }), ttlMs: 60_000 });
    // The grant store fails inside the decision's transaction (a real database trigger, not a mock).
    if (kind === "postgres") {
      await db.$executeRawUnsafe(
        `CREATE FUNCTION refuse_grant() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'grant store down'; END $$ LANGUAGE plpgsql`,
      );
      await db.$executeRawUnsafe(
        `CREATE TRIGGER refuse_grant BEFORE INSERT ON "AllowlistEntry" FOR EACH ROW EXECUTE FUNCTION refuse_grant()`,
      );
    } else {
      await db.$executeRawUnsafe(
        `CREATE TRIGGER refuse_grant BEFORE INSERT ON "AllowlistEntry" BEGIN SELECT RAISE(ABORT, 'grant store down'); END`,
      );
    }
    try {
      await expect(
        service.decideApproval({ approvalId: approval.id, ownerId: owner.id, decision: "allow-always" }),
      ).rejects.toThrow();
    } finally {
      await db.$executeRawUnsafe(`DROP TRIGGER refuse_grant${kind === "postgres" ? ' ON "AllowlistEntry"' : ""}`);
      if (kind === "postgres") await db.$executeRawUnsafe(`DROP FUNCTION refuse_grant()`);
    }
    // Nothing of the decision is left: still pending, no audit row, no event, no grant.
    expect((await store.findApproval({ id: approval.id }))!.status).toBe("pending");
    expect(await db.auditLog.count({ where: { action: "approval.resolved", callId: "g1" } })).toBe(0);
    expect(await db.eventLog.count({ where: { type: "approval.resolved", sessionId: session.id } })).toBe(0);
    expect(await db.allowlistEntry.count({ where: { pattern: command } })).toBe(0);

    // Two approvals of the same command decided at once: both succeed, the rule is stored (and audited) once.
    const { approval: other } = await service.requestApproval({
      ...base(session.id, "g2", { command }),
      ttlMs: 60_000,
    });
    const decided = await Promise.all(
      [approval, other].map((a) =>
        service.decideApproval({ approvalId: a.id, ownerId: owner.id, decision: "allow-always" }),
      ),
    );
    expect(decided.map((d) => d.allowlisted)).toEqual([[command], [command]]);
    expect(await db.allowlistEntry.count({ where: { pattern: command } })).toBe(1);
    expect(await db.auditLog.count({ where: { action: "grant.created", sessionId: session.id } })).toBe(1);
    expect(await db.auditLog.count({ where: { action: "approval.resolved", sessionId: session.id } })).toBe(2);
    const { verifyAuditChain } = await import("@/lib/db/audit");
    expect(await verifyAuditChain()).toMatchObject({ ok: true });
    await db.allowlistEntry.deleteMany({ where: { pattern: command } });
  });

  // The NOTIFY comes from a trigger on the event log, so a writer that sends none (another instance's outbox, a
  // script) still wakes every tailer at commit (this file turns the safety poll off).
  it.skipIf(kind !== "postgres")(
    "an event row inserted by any connection wakes the tailer at commit (the trigger notifies)",
    async () => {
      const { Client } = await import("pg");
      const bus = await import("@/lib/events/bus");
      let arrived = 0;
      const unsubscribe = await bus.subscribeEvents((e) => {
        if (e.type === "test.trigger") arrived = performance.now();
      });
      const other = new Client({ connectionString: process.env.DATABASE_URL });
      await other.connect();
      try {
        await other.query("BEGIN");
        await other.query(`INSERT INTO "EventLog" (type, scope, payload) VALUES ('test.trigger', 'approvals', '{}')`);
        await new Promise((r) => setTimeout(r, 200));
        expect(arrived).toBe(0); // not before the commit
        const committed = performance.now();
        await other.query("COMMIT");
        const deadline = Date.now() + 3_000;
        while (!arrived && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        // With the safety poll off nothing else could deliver it: arriving at all proves the NOTIFY.
        expect(arrived).toBeGreaterThan(committed);
      } finally {
        unsubscribe();
        await other.end();
      }
    },
  );

  it.skipIf(kind !== "postgres")("events committed out of seq order are not lost by the tailer", async () => {
    const { Client } = await import("pg");
    const bus = await import("@/lib/events/bus");
    const got: number[] = [];
    const unsubscribe = await bus.subscribeEvents((e) => {
      if (e.type === "test.gap") got.push(e.seq);
    });
    const slow = new Client({ connectionString: process.env.DATABASE_URL });
    await slow.connect();
    try {
      await slow.query("BEGIN");
      const first = (
        await slow.query(
          `INSERT INTO "EventLog" (type, scope, payload) VALUES ('test.gap', 'approvals', '{}') RETURNING seq`,
        )
      ).rows[0].seq as number;
      // A later publisher commits first: seq first+1 is visible while `first` is not.
      const second = await bus.publishEvent({ type: "test.gap", scope: "approvals", payload: {} });
      expect(second.seq).toBeGreaterThan(first);
      await new Promise((r) => setTimeout(r, 300));
      await slow.query("COMMIT");
      await slow.query(`SELECT pg_notify('toolgate_events', '${first}')`);
      const deadline = Date.now() + 5_000;
      while (got.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(got).toEqual([first, second.seq]);
    } finally {
      unsubscribe();
      await slow.end();
    }
  });
});
