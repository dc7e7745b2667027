import "server-only";
// recordOutcome: everything one outcome of a call or a run changes commits in one transaction or not at all —
// the call's state (its idempotency row), the approval, the transcript message, the run's state, the event
// rows (the outbox) and the audit rows, written last because on PostgreSQL the audit lock is held until
// commit. The events fan out only after the commit. A conditional step that loses (the call is no longer in
// the state this outcome expects, an allow-once approval already consumed, a run no longer ours) rolls the
// whole outcome back and says so.
import { insertAuditRows, type AuditEntry } from "@/lib/db/audit";
import { consumeApproval } from "@/lib/db/approvals";
import { transact } from "@/lib/db/client";
import { insertEvents, type EventRow, type NewEvent } from "@/lib/db/events";
import { appendMessageTx, updateToolMessage, type MessageRow, type NewMessage } from "@/lib/db/messages";
import { moveRun, type RunStatus } from "@/lib/db/runs";
import { lostStep, sqlOf, transactSql, type Commit, type Sql } from "@/lib/db/sql";
import { checkRunForCall, insertToolCall, moveToolCall, type CallStatus } from "@/lib/db/tool-calls";
import { registerApprovalInTx } from "@/lib/approvals/service";
import { eventsAbandoned, eventsCommitted, eventsPending } from "@/lib/events/bus";
import { observeOutcome } from "@/lib/ops/outcomes";
import { INSTANCE_ID } from "./lease";
import { failRun } from "./recovery";

type ApprovalRequest = Parameters<typeof registerApprovalInTx>[1];
type Approval = Awaited<ReturnType<typeof registerApprovalInTx>>["approval"];

export type Outcome = {
  sessionId: string;
  runId: string;
  /**
   * The call's state change; `required` (the default) makes a lost conditional update roll everything back.
   * From ["new"] the row is inserted: a call id seen before (any instance) loses, always rolling back.
   */
  call?: { callId: string; toolName: string; argsHash?: string; from: CallStatus[]; to: CallStatus; data?: Parameters<typeof moveToolCall>[0]["data"]; required?: boolean };
  /** An allow-once approval consumed by this execution (exactly once). */
  consume?: { approvalId: string };
  approval?: ApprovalRequest;
  /** A new transcript line, or the settling of a tool line written as pending (kept in place). */
  message?: MessageWrite | ((approval: Approval | undefined) => MessageWrite);
  run?: { from: RunStatus[]; to: RunStatus; error?: string | null; owner?: string; required?: boolean };
  audit?: AuditEntry[];
  events?: NewEvent[];
};

export type MessageWrite = { append: NewMessage } | { settle: { toolCallId: string; content: string; parts: unknown } };

export type Recorded = { ok: true; approval?: Approval; message?: MessageRow } | { ok: false; lost: "call" | "consume" | "run" };

type Written = { approval?: Approval; message?: MessageRow; audit: AuditEntry[]; events: EventRow[] };

class Lost extends Error {
  constructor(readonly what: "call" | "consume" | "run" | "unsettled") {
    super(`outcome lost: ${what}`);
  }
}

/**
 * The outcome's writes; `register` is given only when it asks for an approval (written through the model API).
 * What they wrote is `answered`, read after the commit: the commit may go out before the answers are in (below).
 * The steps (the run's check, the approval consumed, the call's row, the line, the run's move), the events and the
 * audit head's lock are all asked for before any answer is read, so on PostgreSQL they share one round trip (sql.ts);
 * what their answers decide (a lost step rolls everything back) is checked in the order they were asked for, so the
 * first one lost is the one reported. The order the statements reach the database is the order of the code, which
 * keeps the lock order: the run's row first, the audit chain's head last.
 */
async function write(
  tx: Sql,
  o: Outcome,
  register?: (request: ApprovalRequest) => ReturnType<typeof registerApprovalInTx>,
  written?: (events: EventRow[]) => void,
): Promise<{ answered: Promise<Written> }> {
  // The audit row is written last (lock order) but stamped first: what is recorded happened before its lines.
  const at = new Date();
  const audit = [...(o.audit ?? [])];
  const events = [...(o.events ?? [])];
  let approval: Approval | undefined;
  if (o.approval && register) {
    const r = await register(o.approval);
    approval = r.approval;
    audit.unshift(...r.audit);
    events.unshift(...r.events);
  }
  // Every answer in the order asked for, each marked handled now: one that fails while an earlier one is awaited
  // is reported at the end, not as an unhandled rejection.
  const answers: Array<Promise<unknown>> = [];
  const later = <T>(answer: Promise<T>): Promise<T> => {
    answer.catch(() => undefined);
    answers.push(answer);
    return answer;
  };
  // Once every answer so far is in: the first failure in the order asked for, thrown.
  const allAnswered = async () => {
    const failed = (await Promise.allSettled(answers)).find((answer) => answer.status === "rejected");
    if (failed) throw failed.reason;
  };
  // A step that loses says so by its answer, or (asked with `raise` on the pipelined runner) by failing its
  // statement in the database, which aborts the transaction there: what was sent behind it does not run.
  const step = <T>(answer: Promise<T>, lost: (value: T) => Lost | undefined) =>
    later(
      answer.then(
        (value) => {
          const error = lost(value);
          if (error) throw error;
        },
        (error: unknown) => {
          const what = lostStep(error);
          throw what ? new Lost(what) : error;
        },
      ),
    );
  // A conditional move with the event that tells of it. Required, it is a step: one that loses rolls back its event
  // with everything else. Optional, its answer is waited for to know whether to tell (a failure, its own or an
  // earlier one's aborted transaction, is reported with the others, in order).
  const move = async (moved: Promise<boolean>, required: boolean, what: "call" | "run", event?: NewEvent) => {
    if (required) {
      step(moved, (ok) => (ok ? undefined : new Lost(what)));
      if (event) events.push(event);
    } else if ((await later(moved).catch(() => false)) && event) events.push(event);
  };
  try {
    // A call starts only in a run that still runs, with no Stop asked (from any instance). Moving on (a new call
    // runs, the run waits, ends or fails) while a call of this run is still `running` means a deferred result was
    // lost (commitOf): the run is failed there instead of building on a transcript with a hole.
    if (o.call?.to === "running" || (o.run !== undefined && o.run.to !== "running")) {
      const starts = o.call?.to === "running";
      step(checkRunForCall({ tx, sessionId: o.sessionId, runId: o.runId, callId: o.call?.callId, raise: { starts } }), (run) =>
        starts && !run.held ? new Lost("run") : run.unsettled ? new Lost("unsettled") : undefined,
      );
    }
    if (o.consume) step(consumeApproval({ id: o.consume.approvalId, tx, raise: true }), (consumed) => (consumed ? undefined : new Lost("consume")));
    if (o.call) {
      const call = o.call;
      const data = { ...call.data, ...(approval ? { approvalId: approval.id } : {}) };
      // From "new": the call id is claimed here, by inserting its row (the unique key refuses a second one).
      const claims = call.from.length === 1 && call.from[0] === "new";
      const raise = call.required !== false || claims;
      const moved = claims
        ? insertToolCall({ tx, sessionId: o.sessionId, runId: o.runId, callId: call.callId, toolName: call.toolName, argsHash: call.argsHash ?? "", status: call.to, data, raise })
        : moveToolCall({ tx, sessionId: o.sessionId, callId: call.callId, from: call.from, to: call.to, data, raise });
      // A call id seen before always loses, whatever `required` says.
      await move(moved, raise, "call", { type: "call.updated", scope: "session", sessionId: o.sessionId, payload: { runId: o.runId, callId: call.callId, toolName: call.toolName, status: call.to } });
    }
    const m = typeof o.message === "function" ? o.message(approval) : o.message;
    let message: Promise<MessageRow | undefined> | undefined;
    if (m && "append" in m) message = later(appendMessageTx({ tx, sessionId: o.sessionId, message: m.append }));
    else if (m) {
      const { toolCallId, content, parts } = m.settle;
      // Settling a line that was never written (the server died before it) appends it instead.
      message = later(
        updateToolMessage({ tx, sessionId: o.sessionId, toolCallId, content, parts }).then((count) =>
          count === 0 ? appendMessageTx({ tx, sessionId: o.sessionId, message: { role: "tool", content, parts, toolCallId, runId: o.runId } }) : undefined,
        ),
      );
    }
    if (o.run) {
      const run = o.run;
      const moved = moveRun({ tx, runId: o.runId, from: run.from, to: run.to, error: run.error, owner: run.owner, raise: run.required !== false });
      // running → running only proves (and row-locks) that the run is still this instance's: nothing changed to tell.
      const changed = !(run.to === "running" && run.from.every((s) => s === "running"));
      await move(moved, run.required !== false, "run", changed ? { type: "run.updated", scope: "session", sessionId: o.sessionId, payload: { runId: o.runId, status: run.to } } : undefined);
    }
    // A lost outcome takes no event number, no audit number and not the audit lock: a rollback does not give back
    // the numbers a sequence handed out, and an event number taken by an outcome that loses is a hole every
    // instance's tailer waits GAP_WAIT_MS for (lib/events/bus.ts) — a reused call id or a claim after a Stop would
    // stall every live stream. On the pipelined runner a lost step has already failed the transaction in the
    // database (raise), so the events and the audit head go out behind the steps and do not run after a loss.
    // Elsewhere the statements run one at a time anyway: what the steps decide is read first. A settled line's
    // fallback (a second statement, sent after the first one's answer) is waited for either way.
    if (!tx.pipelined || (m && !("append" in m))) await allAnswered();
    const eventRows = later(
      insertEvents({ events, tx }).then((rows) => {
        written?.(rows);
        return rows;
      }),
    );
    later(insertAuditRows(tx, audit, at));
    const answered = allAnswered().then(async () => ({ approval, message: await message, audit, events: await eventRows }));
    answered.catch(() => undefined);
    // Every statement is on the wire now but the audit rows' second one, which needs the head's answer. Without
    // audit rows on the pipelined runner nothing left waits for an answer, and nothing that could still go wrong
    // is decided here: a step that loses fails in the database, and so does a line for a session that is gone
    // (messages.ts); a value that could not be bound refuses the commit (sql.ts). So the commit goes out behind
    // them (transactSql) and a call's result is one round trip; its answers are read with the commit's, and a
    // failure among them rolls it back.
    if (tx.pipelined && audit.length === 0) return { answered };
    return { answered: Promise.resolve(await answered) };
  } catch (error) {
    // Nothing is reported before every answer is in (an optional step's own answer can fail first): a step still
    // going on (the audit rows follow the head's answer) must not send a statement after the transaction ended.
    await Promise.allSettled(answers);
    throw error;
  }
}

/**
 * Whether the outcome's commit waits for the disk. Everything that decides or authorises does: a call id claimed
 * (the at-most-once guarantee), an approval asked for or consumed, an audit row, a run's state. Only a call's
 * result (running → done / failed / stopped, with its transcript line) is deferred (sql.ts): one of the two
 * commits of every call, on the hot path. A crash of the database server right after it can lose it whole, and
 * the call reads `running` again. Nothing builds on that: the next claim or the turn's end in this run finds it
 * (the guard in write) and fails the run as recovery.ts fails an abandoned one, with an INTERRUPTED line for the
 * call; a run whose instance went down too is failed that way by the lease expiry. It is never run again.
 */
export function commitOf(o: Outcome): Commit {
  const settles = o.call !== undefined && o.call.from.every((s) => s === "running") && ["done", "failed", "stopped"].includes(o.call.to);
  const decides = Boolean(o.audit?.length || o.approval || o.consume || o.run);
  return settles && !decides ? "deferred" : "flush";
}

export function recordOutcome(o: Outcome): Promise<Recorded> {
  return observeOutcome(o, () => recordNow(o));
}

async function recordNow(o: Outcome): Promise<Recorded> {
  let result: Written;
  let pending: EventRow[] = [];
  const written = (rows: EventRow[]) => {
    pending = rows;
    eventsPending(rows);
  };
  try {
    // An approval request is written through Prisma's model API, so that outcome runs in a Prisma transaction
    // (the SQL through its raw queries); every other outcome takes the runner's own transaction.
    const outcome = o.approval
      ? await transact((tx) => write(sqlOf(tx), o, (request) => registerApprovalInTx(tx, request), written))
      : await transactSql((sql) => write(sql, o, undefined, written), { commit: commitOf(o) });
    result = await outcome.answered;
  } catch (caught) {
    // An outcome committed behind its statements learns of a lost step from the commit (transactSql): as it failed.
    const what = lostStep(caught);
    const error = what ? new Lost(what) : caught;
    eventsAbandoned(pending);
    if (error instanceof Lost && error.what === "unsettled") {
      // What a crash of the database server can leave behind (commitOf): end the turn as a crash of this server
      // would be ended, one transaction with a line for each unfinished call. The callers see the run as lost.
      // Its command finished long ago: the pid its row names may be another command's by now, so nothing is killed.
      await failRun({ runId: o.runId, sessionId: o.sessionId, owner: INSTANCE_ID, reason: "a call's recorded result was lost by the database", kill: false });
      return { ok: false, lost: "run" };
    }
    if (error instanceof Lost) return { ok: false, lost: error.what === "unsettled" ? "run" : error.what };
    throw error;
  }
  if (result.events.length) await eventsCommitted(result.events);
  return { ok: true, approval: result.approval, message: result.message };
}
