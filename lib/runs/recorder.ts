import "server-only";
// recordOutcome: which outcome of a call or a run this is, for the run store (lib/runs/store.ts), which commits
// each in one transaction. A run whose call is found still `running` when it moves on (its result was lost) is
// failed here as an abandoned one is, and reported as lost.
import type { AuditEntry } from "@/lib/db/audit";
import type { RunStatus } from "@/lib/db/runs";
import type { CallStatus } from "@/lib/db/tool-calls";
import { observeOutcome } from "@/lib/ops/outcomes";
import { INSTANCE_ID } from "./lease";
import { failRun } from "./recovery";
import { runStore, type Approval, type ApprovalRequest, type CallData, type LineWrite, type Stored } from "./store";
import type { MessageRow } from "@/lib/db/messages";

export type MessageWrite = LineWrite;

export type Outcome = {
  sessionId: string;
  runId: string;
  /**
   * The call's state change; `required` (the default) makes a lost conditional update roll everything back.
   * From ["new"] the row is inserted: a call id seen before (any instance) loses, always rolling back.
   */
  call?: {
    callId: string;
    toolName: string;
    argsHash?: string;
    from: CallStatus[];
    to: CallStatus;
    data?: CallData;
    required?: boolean;
  };
  /** An allow-once approval consumed by this execution (exactly once). */
  consume?: { approvalId: string };
  approval?: ApprovalRequest;
  /** A new transcript line, or the settling of a tool line written as pending (kept in place). */
  message?: MessageWrite | ((approval: Approval | undefined) => MessageWrite);
  run?: { from: RunStatus[]; to: RunStatus; error?: string | null; owner?: string; required?: boolean };
  audit?: AuditEntry[];
  /** The run is an outside client's run of one call, beside others in its session (store.ts: begin's `shared`). */
  shared?: boolean;
  /** Such a run ends with its call's result, in the result's transaction (store.ts settleCall's `endsRun`). */
  endsRun?: { to: RunStatus; owner: string };
};

export type Recorded =
  { ok: true; approval?: Approval; message?: MessageRow } | { ok: false; lost: "call" | "consume" | "run" };

/** The store's verb for this outcome. */
function commit(o: Outcome): Promise<Stored<{ approval?: Approval; message?: MessageRow }>> {
  const store = runStore();
  const ids = { sessionId: o.sessionId, runId: o.runId };
  const line = typeof o.message === "function" ? o.message(undefined) : o.message;
  if (o.approval) {
    if (!o.call) throw new Error("an approval request needs its call");
    const lineFor = o.message;
    return store.askApproval({
      ...ids,
      call: o.call,
      approval: o.approval,
      line: (a) => (typeof lineFor === "function" ? lineFor(a) : lineFor!),
    });
  }
  if (o.call?.to === "running")
    return store.claimCall({
      ...ids,
      call: o.call,
      consume: o.consume?.approvalId,
      audit: o.audit ?? [],
      shared: o.shared,
    });
  if (o.run?.to === "running") {
    if (!o.run.owner || !line || !("append" in line))
      throw new Error("a model step is a new line in a run this instance holds");
    return store.recordStep({ ...ids, owner: o.run.owner, line: line.append });
  }
  if (o.run) {
    if (o.run.to === "failed" && o.run.required === false)
      return store.fail({ ...ids, owner: o.run.owner, error: o.run.error ?? "failed", shared: o.shared });
    return store.finish({
      ...ids,
      owner: o.run.owner,
      to: o.run.to,
      error: o.run.error,
      line: line && "append" in line ? line.append : undefined,
      shared: o.shared,
    });
  }
  return store.settleCall({ ...ids, call: o.call, line, audit: o.audit, endsRun: o.endsRun });
}

export function recordOutcome(o: Outcome): Promise<Recorded> {
  return observeOutcome(o, () => recordNow(o));
}

async function recordNow(o: Outcome): Promise<Recorded> {
  const stored = await commit(o);
  if (stored.ok) return stored;
  if (stored.lost === "unsettled") {
    // A call of this run still `running` while the run moves on: its recorded result was lost. End the turn as a
    // crash of this server would be ended, one transaction with a line for each unfinished call. The callers see
    // the run as lost. Its command finished long ago: the pid its row names may be another command's by now, so
    // nothing is killed.
    await failRun({
      runId: o.runId,
      sessionId: o.sessionId,
      owner: INSTANCE_ID,
      reason: "a call's recorded result was lost by the database",
      kill: false,
    });
    return { ok: false, lost: "run" };
  }
  if (stored.lost === "session") throw new Error("an outcome of a run never begins a turn");
  return { ok: false, lost: stored.lost };
}
