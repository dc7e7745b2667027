// What the recorder's integration files share: lib's recorder and client loaded for the database useDatabase
// prepared (call this inside the describe, after useDatabase), a run of the member's leased by this instance, and a
// claim of a call in it with its audit row, and its result.
import { beforeAll } from "vitest";

type Ids = { sessionId: string; runId: string };

export function useOutcomeFixture() {
  const t = {
    recorder: undefined as unknown as typeof import("@/lib/runs/recorder"),
    db: undefined as unknown as import("@/lib/db/client").Db,
    instance: "",
    ownerId: "",
    async newRun(): Promise<Ids> {
      const sessionId = (await t.db.chatSession.create({ data: { ownerId: t.ownerId } })).id;
      const runId = (
        await t.db.agentRun.create({
          data: { sessionId, status: "running", leaseOwner: t.instance, leaseExpiresAt: new Date(Date.now() + 60_000) },
        })
      ).id;
      return { sessionId, runId };
    },
    claim: (ids: Ids, callId: string) =>
      t.recorder.recordOutcome({
        ...ids,
        call: { callId, toolName: "current_time", argsHash: "h", from: ["new"], to: "running" },
        audit: [{ action: "tool.call", sessionId: ids.sessionId, callId, decision: "allow" }],
      }),
    /** The call's result: running → done with its transcript line. */
    settle: (ids: Ids, callId: string) =>
      t.recorder.recordOutcome({
        ...ids,
        call: { callId, toolName: "current_time", from: ["running"], to: "done" },
        message: {
          append: { role: "tool", content: "{}", toolCallId: callId, toolName: "current_time", runId: ids.runId },
        },
      }),
  };
  beforeAll(async () => {
    t.recorder = await import("@/lib/runs/recorder");
    t.instance = (await import("@/lib/runs/lease")).INSTANCE_ID;
    t.db = (await import("@/lib/db/client")).getDb();
    t.ownerId = (await t.db.user.findUniqueOrThrow({ where: { email: "member@example.com" } })).id;
  });
  return t;
}
