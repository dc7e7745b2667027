// Replay of recorded tool calls against a draft: which past calls the draft would have decided differently.
// Only the policy part of a recorded decision is compared: a call refused later by exec analysis, its
// arguments or a hook had passed the policy, so it counts as allowed by policy.
import { POLICY_LAYERS, type ToolDecision, type ToolMode } from "@/lib/policy";
import type { CellStatus } from "./matrix";

export type RecordedCall = {
  seq: number;
  at: string;
  actorId: string | null;
  sessionId: string | null;
  toolName: string;
  mode: ToolMode;
  decision: string | null;
  layer: string | null;
  rule: string | null;
};

export type ReplayRow = RecordedCall & {
  recorded: CellStatus;
  draft: CellStatus;
  draftLayer: string;
  draftRule?: string;
  draftReason: string;
  differs: boolean;
};

const POLICY_LAYER_SET: ReadonlySet<string> = new Set([...POLICY_LAYERS, "not_found", "policy"]);

/** What the policy said at the time, read from the audit row. */
export function recordedPolicyStatus(call: Pick<RecordedCall, "decision" | "layer">): CellStatus {
  if (call.layer === "approval") return "ask";
  if (call.decision === "deny" && call.layer !== null && POLICY_LAYER_SET.has(call.layer)) return "denied";
  return "allowed";
}

export function replayCalls(
  calls: readonly RecordedCall[],
  decide: (call: RecordedCall) => Pick<ToolDecision, "allowed" | "effect" | "layer" | "rule" | "reason">,
): ReplayRow[] {
  return calls.map((call) => {
    const decision = decide(call);
    const draft: CellStatus = !decision.allowed ? "denied" : decision.effect === "ask" ? "ask" : "allowed";
    const recorded = recordedPolicyStatus(call);
    return {
      ...call,
      recorded,
      draft,
      draftLayer: decision.layer,
      ...(decision.rule !== undefined ? { draftRule: decision.rule } : {}),
      draftReason: decision.reason,
      differs: recorded !== draft,
    };
  });
}
