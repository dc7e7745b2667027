import { describe, expect, it } from "vitest";
import { resolveEffectiveToolPolicy } from "@/lib/policy";
import { recordedPolicyStatus, replayCalls, type RecordedCall } from "@/lib/admin/replay";
import { doc, TOOLS } from "./fixtures";

const call = (over: Partial<RecordedCall>): RecordedCall => ({
  seq: 1,
  at: "2026-11-22T10:00:00.000Z",
  actorId: "u1",
  sessionId: "s1",
  toolName: "current_time",
  mode: "chat_safe",
  decision: "allow",
  layer: "allowed",
  rule: null,
  ...over,
});

describe("replay of recorded calls", () => {
  it("reads the policy part of a recorded decision", () => {
    expect(recordedPolicyStatus({ decision: "allow", layer: "allowed" })).toBe("allowed");
    expect(recordedPolicyStatus({ decision: "deny", layer: "global" })).toBe("denied");
    expect(recordedPolicyStatus({ decision: "deny", layer: "mode" })).toBe("denied");
    // Refused after the policy had allowed it: the policy's answer was "allowed".
    expect(recordedPolicyStatus({ decision: "deny", layer: "exec" })).toBe("allowed");
    expect(recordedPolicyStatus({ decision: "deny", layer: "approval" })).toBe("ask");
  });

  it("marks the calls a draft would decide differently", () => {
    const draft = doc({ tools: { deny: ["current_time"] } });
    const decide = (c: RecordedCall) =>
      resolveEffectiveToolPolicy(
        { roles: ["member", "owner", "admin"], senderIsOwner: true, mode: c.mode },
        { document: draft, tools: TOOLS },
      ).check(c.toolName);
    const rows = replayCalls(
      [
        call({ seq: 1 }),
        call({ seq: 2, toolName: "memory_search" }),
        call({ seq: 3, toolName: "current_time", decision: "deny", layer: "global", rule: "deny: current_time" }),
      ],
      decide,
    );
    expect(rows.map((r) => [r.seq, r.recorded, r.draft, r.differs])).toEqual([
      [1, "allowed", "denied", true],
      [2, "allowed", "allowed", false],
      [3, "denied", "denied", false],
    ]);
    expect(rows[0]).toMatchObject({ draftLayer: "global" });
  });
});
