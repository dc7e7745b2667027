// A call's result that the database lost (its commit gone after the call ran, e.g. a restored backup or a crash of a
// server whose disk lied about the flush): the call's row reads `running` again. Nothing may build on that hole: the
// run's next claim, or its end, finds the unsettled call and fails the run as a crashed server's run is failed (an
// INTERRUPTED line for the call, a notice, an audit row), and the new call never runs. The lost commit is
// reproduced by moving the call's row back, as the database would have it after losing the commit.
import { describe, expect, it } from "vitest";
import { useDatabase } from "../support/database-lifecycle";
import { useOutcomeFixture } from "../support/outcome-fixture";
import { databaseTargets } from "../support/databases";

const targets = databaseTargets();

describe.each(targets)("a lost call result (%s)", (_kind, make) => {
  useDatabase(make);
  const t = useOutcomeFixture();
  const { newRun, claim, settle } = t;
  // What the database holds after losing the result's commit.
  const loseResult = async (ids: { sessionId: string; runId: string }, callId: string) => {
    await t.db.toolCall.update({
      where: { sessionId_callId: { sessionId: ids.sessionId, callId } },
      data: { status: "running", finishedAt: null },
    });
    await t.db.message.deleteMany({ where: { sessionId: ids.sessionId, toolCallId: callId } });
  };

  it("calls that settle one after another claim, settle and complete the run as before", async () => {
    const ids = await newRun();
    for (const callId of ["a", "b", "c"]) {
      expect(await claim(ids, callId)).toMatchObject({ ok: true });
      expect(await settle(ids, callId)).toMatchObject({ ok: true });
    }
    expect(
      await t.recorder.recordOutcome({ ...ids, run: { from: ["running"], to: "completed", owner: t.instance } }),
    ).toMatchObject({ ok: true });
    expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ids.runId } })).status).toBe("completed");
  });

  it("the next claim after a lost result fails the run: the lost call is INTERRUPTED, the new one never claimed", async () => {
    const ids = await newRun();
    expect(await claim(ids, "first")).toMatchObject({ ok: true });
    expect(await settle(ids, "first")).toMatchObject({ ok: true });
    await loseResult(ids, "first");
    expect(await claim(ids, "second")).toEqual({ ok: false, lost: "run" });
    const run = await t.db.agentRun.findUniqueOrThrow({ where: { id: ids.runId } });
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/result was lost/);
    const calls = await t.db.toolCall.findMany({ where: { sessionId: ids.sessionId }, orderBy: { createdAt: "asc" } });
    expect(calls.map((c) => [c.callId, c.status])).toEqual([["first", "failed"]]);
    const lines = await t.db.message.findMany({ where: { sessionId: ids.sessionId }, orderBy: { seq: "asc" } });
    const code = (content: string) =>
      content.startsWith("{") ? (JSON.parse(content) as { error_code?: string }).error_code : content.slice(0, 28);
    expect(lines.map((l) => [l.role, l.toolCallId, code(l.content)])).toEqual([
      ["tool", "first", "INTERRUPTED"],
      ["system", null, "This turn was interrupted: t"],
    ]);
    // The second call's allow row was never written: it did not run, and the log says why the run ended.
    const audit = await t.db.auditLog.findMany({ where: { sessionId: ids.sessionId }, orderBy: { seq: "asc" } });
    expect(audit.map((a) => [a.action, a.callId])).toEqual([
      ["tool.call", "first"],
      ["run.abandoned", null],
    ]);
    // Whatever the run tries next is refused: it is no longer this instance's.
    expect(await claim(ids, "third")).toMatchObject({ ok: false });
  });

  it.each(["completed", "waiting_approval", "aborted", "failed"] as const)(
    "a run cannot move to %s over a lost result either: it is failed with the line",
    async (to) => {
      const ids = await newRun();
      expect(await claim(ids, "only")).toMatchObject({ ok: true });
      await settle(ids, "only");
      await loseResult(ids, "only");
      expect(await t.recorder.recordOutcome({ ...ids, run: { from: ["running"], to, owner: t.instance } })).toEqual({
        ok: false,
        lost: "run",
      });
      expect((await t.db.agentRun.findUniqueOrThrow({ where: { id: ids.runId } })).status).toBe("failed");
      expect(
        (
          await t.db.toolCall.findUniqueOrThrow({
            where: { sessionId_callId: { sessionId: ids.sessionId, callId: "only" } },
          })
        ).status,
      ).toBe("failed");
      expect(
        await t.db.message.count({
          where: { sessionId: ids.sessionId, toolCallId: "only", content: { contains: "INTERRUPTED" } },
        }),
      ).toBe(1);
    },
  );

  it("a call starts only in a run that still runs: after a Stop (from any instance) or the run's end, its claim writes nothing", async () => {
    const stopped = await newRun();
    await t.db.agentRun.update({
      where: { id: stopped.runId },
      data: { stopRequestedAt: new Date(), stopRequestedBy: "someone" },
    });
    const ended = await newRun();
    await t.db.agentRun.update({ where: { id: ended.runId }, data: { status: "failed" } });
    for (const ids of [stopped, ended]) {
      // Many times: the claim's statements go out together, and its audit row follows the head's answer, after the
      // run's answer has already lost the claim. The rollback must still come after that row.
      for (let i = 0; i < 15; i++) expect(await claim(ids, `late-${i}`)).toEqual({ ok: false, lost: "run" });
      expect(await t.db.toolCall.count({ where: { sessionId: ids.sessionId } })).toBe(0);
      expect(await t.db.auditLog.count({ where: { sessionId: ids.sessionId } })).toBe(0);
    }
  });

  it("another run's unsettled call is none of this run's business", async () => {
    const busy = await newRun();
    expect(await claim(busy, "long")).toMatchObject({ ok: true }); // still running, legitimately
    const other = {
      sessionId: busy.sessionId,
      runId: (
        await t.db.agentRun.create({ data: { sessionId: busy.sessionId, status: "running", leaseOwner: t.instance } })
      ).id,
    };
    expect(await claim(other, "mine")).toMatchObject({ ok: true });
  });
});
