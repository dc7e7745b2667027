// What a recorded outcome (lib/runs/recorder.ts: one transaction per decision, claim or result) tells the
// operator: its database time by kind and result, the audited gate decisions with their deciding layer, the
// state the call moved to, and a toolgate.record span. Counted only once committed, so the counters match the
// audit log. Structural types: lib/ops imports no run engine.
import { countCallState, countDecision, observeDbOutcome } from "./metrics";
import { inSpan } from "./tracing";

type OutcomeShape = {
  approval?: unknown;
  call?: { from: readonly string[]; to: string };
  run?: { to: string };
  audit?: ReadonlyArray<{ action: string; decision?: string | null; layer?: string | null }>;
  message?: unknown;
};

function kindOf(o: OutcomeShape): string {
  if (o.approval) return "approval";
  if (o.call?.to === "running") return "claim";
  if (o.call && ["done", "failed", "stopped"].includes(o.call.to) && o.call.from.every((s) => s === "running"))
    return "result";
  if (o.call && ["denied", "expired"].includes(o.call.to)) return "deny";
  if (o.run) return o.run.to === "running" ? "step" : "run";
  return o.call ? "other" : "message";
}

export async function observeOutcome<R extends { ok: boolean }>(o: OutcomeShape, write: () => Promise<R>): Promise<R> {
  const kind = kindOf(o);
  const started = performance.now();
  const seconds = () => (performance.now() - started) / 1000;
  let recorded: R;
  try {
    recorded = await inSpan("toolgate.record", { "toolgate.record_kind": kind }, write);
  } catch (error) {
    observeDbOutcome(kind, "error", seconds());
    throw error;
  }
  observeDbOutcome(kind, recorded.ok ? "ok" : "lost", seconds());
  if (recorded.ok) {
    for (const entry of o.audit ?? []) if (entry.action === "tool.call") countDecision(entry.decision, entry.layer);
    // An ask writes the approval request (its audit row is the request's own): counted as the gate's "ask".
    if (o.approval) countDecision("ask", "approval");
    if (o.call) countCallState(o.call.to);
  }
  return recorded;
}
