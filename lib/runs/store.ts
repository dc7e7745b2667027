import "server-only";
// The run store: every outcome of a run and of its calls, as one verb each. Each verb is one interactive Prisma
// transaction (but the begin of an outside client's run, a single insert): the call's state (its idempotency row),
// the approval, the transcript line, the run's state, the event rows (the outbox) and the audit rows commit together
// or not at all, and the events fan out after the commit. A conditional step that loses (the call id was used before,
// the call is no longer in the state the outcome expects, an allow-once approval already consumed, a run no longer
// ours or stopped) rolls the whole outcome back and the verb answers which part was lost. The steps come first and
// the events and audit rows last, so an outcome that loses takes no event number and no audit number (a sequence does
// not give numbers back on rollback, and an event number nobody commits is a hole every instance's tailer waits for)
// and never holds the audit chain's lock.
import { randomBytes } from "node:crypto";
import { insertAuditRows, type AuditEntry } from "@/lib/db/audit";
import { consumeApproval } from "@/lib/db/approvals";
import { getDb, transact, type Tx } from "@/lib/db/client";
import { insertEvents, type EventRow, type NewEvent } from "@/lib/db/events";
import {
  appendMessageTx,
  findLastUserSeq,
  findToolLineState,
  supersedeFromMessage,
  updateToolMessage,
  type MessageRow,
  type NewMessage,
} from "@/lib/db/messages";
import { AppError } from "@/lib/errors";
import { claimSessionForRun, holdRunForCall, insertLeasedRun, moveRun, type RunStatus } from "@/lib/db/runs";
import { CallIdTaken, findUnsettledCall, insertToolCall, moveToolCall, type CallStatus } from "@/lib/db/tool-calls";
import { registerApprovalInTx } from "@/lib/approvals/service";
import { eventsAbandoned, eventsCommitted, eventsPending } from "@/lib/events/bus";

export type ApprovalRequest = Parameters<typeof registerApprovalInTx>[1];
export type Approval = Awaited<ReturnType<typeof registerApprovalInTx>>["approval"];

/**
 * The part of an outcome that lost: the call (its id used before, or not in the state expected), the allow-once
 * approval (consumed already), the run (ended, stopped or not ours), the session (another run holds it), or
 * "unsettled": a call of the run is still `running` (its result was lost), so the run must not go on.
 */
export type LostPart = "call" | "consume" | "run" | "session" | "unsettled";
export type Stored<T = object> = ({ ok: true } & T) | { ok: false; lost: LostPart };

export type CallRef = { callId: string; toolName: string; argsHash?: string };
export type CallData = NonNullable<Parameters<typeof moveToolCall>[0]["data"]>;
/** A new transcript line, or the settling of a tool line written as pending (kept in place). */
export type LineWrite = { append: NewMessage } | { settle: { toolCallId: string; content: string; parts: unknown } };
type Ids = { sessionId: string; runId: string };
/**
 * What a new user message is besides a message: an edit or regenerate truncates the transcript at `rewindFrom`
 * (a user message id, audited as `actorId`); an answer to an ask_user question names the question's call. Both are
 * checked under the session's run claim, so two edits or two answers racing each other cannot both win.
 */
export type TurnKind = { actorId: string; rewindFrom?: string; answerTo?: string };

export interface RunStore {
  /**
   * A turn starts: the run (leased by `owner`), the session's claim on it and the user's message. `shared`: a run
   * beside others in its session (one call of an outside client, lib/runs/call-pipeline.ts): no claim, no line.
   * `title`: the session's first turn names it. The session's open tabs hear of the message (and the title).
   * `runId`: the new run's id when the caller chose it (newRunId), to hold the run before it exists. `userSeq`: the
   * number of the run's user message (null for a shared run).
   */
  begin(input: {
    sessionId: string;
    runId?: string;
    text?: string;
    title?: string;
    owner: string;
    leaseMs: number;
    shared?: boolean;
    turn?: TurnKind;
  }): Promise<Stored<{ runId: string; userSeq: number | null }>>;
  /** A model step's line, only while `owner` still holds the run. */
  recordStep(input: Ids & { owner: string; line: NewMessage }): Promise<Stored<{ message: MessageRow }>>;
  /**
   * The claim: the call moves to running (from "new": its id is inserted), an allow-once approval consumed, the allow
   * audit row. `shared`: the run is an outside client's run of this one call, so no other call of it can be unsettled.
   */
  claimCall(
    input: Ids & {
      call: CallRef & { from: CallStatus[]; data?: CallData };
      consume?: string;
      audit: AuditEntry[];
      shared?: boolean;
    },
  ): Promise<Stored>;
  /**
   * A call's end (a result, a denial, a stop, an expiry) with its line and audit rows. `required: false` keeps the
   * line and the audit rows when the call's move loses; a move "from new" (the id's claim) always loses whole. No
   * call: only the line (a call id used before still gets its line). `endsRun`: an outside client's run of this one
   * call (begin's `shared`) ends in the same transaction, from running, while `owner` holds it.
   */
  settleCall(
    input: Ids & {
      call?: CallRef & { from: CallStatus[]; to: CallStatus; data?: CallData; required?: boolean };
      line?: LineWrite;
      audit?: AuditEntry[];
      endsRun?: { to: RunStatus; owner: string };
    },
  ): Promise<Stored<{ message?: MessageRow }>>;
  /** The call waits for an owner: the approval request, the call's id claimed as pending, its pending line, all together. */
  askApproval(
    input: Ids & { call: CallRef; approval: ApprovalRequest; line: (approval: Approval) => LineWrite },
  ): Promise<Stored<{ approval: Approval; message?: MessageRow }>>;
  /**
   * The run moves on from running (paused for an approval, completed, aborted), with its last line; only while
   * `owner` holds it. `shared` (begun so): the session was never claimed, so there is no claim to release.
   */
  finish(
    input: Ids & {
      owner?: string;
      to: Exclude<RunStatus, "running">;
      error?: string | null;
      line?: NewMessage;
      shared?: boolean;
    },
  ): Promise<Stored>;
  /** The run failed: moved to failed if it still runs (a run already ended is left as it is, and still answers ok). */
  fail(input: Ids & { owner?: string; error: string; shared?: boolean }): Promise<Stored>;
}

class LostOutcome extends Error {
  constructor(readonly part: LostPart) {
    super(`outcome lost: ${part}`);
  }
}

/** What one outcome writes besides its steps: its events and audit rows, written last (see the top of this file). */
type Tell = { events: NewEvent[]; audit: AuditEntry[] };

const callEvent = (ids: Ids, call: CallRef, status: CallStatus): NewEvent => ({
  type: "call.updated",
  scope: "session",
  sessionId: ids.sessionId,
  payload: { runId: ids.runId, callId: call.callId, toolName: call.toolName, status },
});
const runEvent = (ids: Ids, status: RunStatus): NewEvent => ({
  type: "run.updated",
  scope: "session",
  sessionId: ids.sessionId,
  payload: { runId: ids.runId, status },
});

/** A new row id in the shape of Prisma's cuid(): "c", the time in base 36, random digits. Unique and URL-safe. */
function newId(): string {
  return `c${Date.now().toString(36)}${randomBytes(12).toString("hex")}`;
}

/** An id for a run about to begin (store.begin's `runId`). */
export const newRunId = newId;

/**
 * One outcome: `fn` does its steps (throwing LostOutcome when one loses) and says what to tell; the events and the
 * audit rows follow in the same transaction, stamped with the moment the outcome began (what is recorded happened
 * before its lines). The events fan out once committed.
 */
async function outcome<T extends object>(fn: (tx: Tx, tell: Tell) => Promise<T>): Promise<Stored<T>> {
  const at = new Date();
  let pending: EventRow[] = [];
  let result: T;
  try {
    result = await transact(async (tx) => {
      const tell: Tell = { events: [], audit: [] };
      const value = await fn(tx, tell);
      pending = await insertEvents({ tx, events: tell.events });
      eventsPending(pending);
      await insertAuditRows(tx, tell.audit, at);
      return value;
    });
  } catch (error) {
    eventsAbandoned(pending);
    if (error instanceof LostOutcome) return { ok: false, lost: error.part };
    if (error instanceof CallIdTaken) return { ok: false, lost: "call" };
    throw error;
  }
  if (pending.length) await eventsCommitted(pending);
  return { ok: true, ...result };
}

/**
 * The run moves out of running (lib/db/runs.ts moveRun: its conditional update locks the run's row), then no call
 * of it may still be `running` (its result was lost): read after the lock, so an instance failing the run meanwhile
 * either waited for this transaction or finished first. Either loss rolls the move back; "unsettled" is told first.
 */
async function endRun(
  tx: Tx,
  ids: Ids,
  move: Omit<Parameters<typeof moveRun>[0], "tx" | keyof Ids | "from">,
): Promise<boolean> {
  const moved = await moveRun({ tx, ...ids, from: ["running"], ...move });
  if (await findUnsettledCall({ tx, ...ids })) throw new LostOutcome("unsettled");
  return moved;
}

/** The call's state move with its event; from "new" the row is inserted (the claim of the call id). False: it lost. */
async function moveCall(
  tx: Tx,
  ids: Ids,
  tell: Tell,
  call: CallRef & { from: CallStatus[]; to: CallStatus; data?: CallData },
): Promise<boolean> {
  if (call.from.length === 1 && call.from[0] === "new") {
    await insertToolCall({
      tx,
      ...ids,
      callId: call.callId,
      toolName: call.toolName,
      argsHash: call.argsHash ?? "",
      status: call.to,
      data: call.data,
    });
  } else if (
    !(await moveToolCall({
      tx,
      sessionId: ids.sessionId,
      callId: call.callId,
      from: call.from,
      to: call.to,
      data: call.data,
    }))
  ) {
    return false;
  }
  tell.events.push(callEvent(ids, call, call.to));
  return true;
}

async function writeLine(tx: Tx, ids: Ids, line: LineWrite | undefined): Promise<MessageRow | undefined> {
  if (!line) return undefined;
  if ("append" in line) return appendMessageTx({ tx, sessionId: ids.sessionId, message: line.append });
  const { toolCallId, content, parts } = line.settle;
  // Settling a line that was never written (the server died before it) appends it instead.
  if ((await updateToolMessage({ tx, sessionId: ids.sessionId, toolCallId, content, parts })) > 0) return undefined;
  return appendMessageTx({
    tx,
    sessionId: ids.sessionId,
    message: { role: "tool", content, parts, toolCallId, runId: ids.runId },
  });
}

/** An edit's truncation (audited) or an answer's check; an AppError rolls the whole begin back. */
async function checkTurnKind(
  tx: Tx,
  tell: Tell,
  { sessionId, text, turn }: { sessionId: string; text: string; turn: TurnKind },
) {
  if (turn.answerTo) {
    const line = await findToolLineState({ tx, sessionId, toolCallId: turn.answerTo });
    if (!line || line.toolName !== "ask_user" || (line.parts as { status?: unknown } | null)?.status !== "ok")
      throw new AppError("NOT_FOUND", "no such question in this chat");
    if (line.answered) throw new AppError("CONFLICT", "this question has been answered already");
    const choices = askedChoices(line.parts);
    if (choices.length > 0 && !choices.includes(text))
      throw new AppError("VALIDATION_FAILED", "the answer is not one of the choices offered", { choices });
  }
  if (turn.rewindFrom) {
    const at = new Date();
    const cut = await supersedeFromMessage({ tx, sessionId, messageId: turn.rewindFrom, at });
    if (cut === "unknown") throw new AppError("NOT_FOUND", "no such message of yours in this chat");
    if (cut === "superseded")
      throw new AppError("CONFLICT", "this message was edited or regenerated already; reload the chat");
    tell.audit.push({
      action: "chat.rewound",
      actorId: turn.actorId,
      sessionId,
      decision: "allow",
      details: { messageId: turn.rewindFrom, fromSeq: cut.seq, superseded: cut.count },
    });
  }
}

/** The choices an ask_user result offered (its stored output), none when it offered free text. */
function askedChoices(parts: unknown): string[] {
  const output = (parts as { output?: { choices?: unknown } } | null)?.output;
  return Array.isArray(output?.choices) ? output.choices.filter((c): c is string => typeof c === "string") : [];
}

/** The run store on plain Prisma: one interactive transaction per outcome, typed queries (lib/db). */
export const prismaRunStore: RunStore = {
  begin: async ({ sessionId, runId: chosen, text, title, owner, leaseMs, shared, turn }) => {
    if (shared) {
      // One insert and nothing to tell: atomic on its own, without an interactive transaction's round trips.
      const runId = chosen ?? newId();
      await insertLeasedRun({ tx: getDb(), runId, sessionId, owner, leaseMs, userSeq: null });
      return { ok: true, runId, userSeq: null };
    }
    return outcome(async (tx, tell) => {
      const runId = chosen ?? newId();
      const seq = await claimSessionForRun({ tx, sessionId, runId, title, takeSeq: text !== undefined });
      if (seq === null) throw new LostOutcome("session");
      if (turn && text !== undefined) await checkTurnKind(tx, tell, { sessionId, text, turn });
      const userSeq =
        text !== undefined
          ? (await appendMessageTx({ tx, sessionId, message: { role: "user", content: text, runId }, seq })).seq
          : await findLastUserSeq({ tx, sessionId });
      await insertLeasedRun({ tx, runId, sessionId, owner, leaseMs, userSeq });
      // The session's other open tabs show the user's message (and the new title) now, not only when the turn ends.
      if (text !== undefined)
        tell.events.push({
          type: "session.updated",
          scope: "session",
          sessionId,
          payload: { change: "message", runId },
        });
      if (title !== undefined)
        tell.events.push({ type: "session.updated", scope: "session", sessionId, payload: { change: "title", title } });
      return { runId, userSeq };
    });
  },

  recordStep: ({ owner, line, ...ids }) =>
    outcome(async (tx) => {
      // running → running proves (and locks) that the run is still this instance's: nothing changed to tell.
      if (!(await moveRun({ tx, ...ids, from: ["running"], to: "running", owner }))) throw new LostOutcome("run");
      return { message: await appendMessageTx({ tx, sessionId: ids.sessionId, message: line }) };
    }),

  claimCall: ({ call, consume, audit, shared, ...ids }) =>
    outcome(async (tx, tell) => {
      // The run must still run, no Stop asked (its row locked until commit), and no other call of it unsettled.
      if (!(await holdRunForCall({ tx, runId: ids.runId }))) throw new LostOutcome("run");
      if (!shared && (await findUnsettledCall({ tx, ...ids, callId: call.callId }))) throw new LostOutcome("unsettled");
      if (consume && !(await consumeApproval({ id: consume, tx }))) throw new LostOutcome("consume");
      if (!(await moveCall(tx, ids, tell, { ...call, to: "running" }))) throw new LostOutcome("call");
      tell.audit.push(...audit);
      return {};
    }),

  settleCall: ({ call, line, audit = [], endsRun, ...ids }) =>
    outcome(async (tx, tell) => {
      if (call && !(await moveCall(tx, ids, tell, call)) && call.required !== false) throw new LostOutcome("call");
      const message = await writeLine(tx, ids, line);
      tell.audit.push(...audit);
      // The run's one call is the one settled above: unlike finish, no other call of it can be left running. A run
      // no longer running here (failed as abandoned meanwhile) keeps the result; ending it later would lose as well.
      if (
        endsRun &&
        (await moveRun({ tx, ...ids, from: ["running"], to: endsRun.to, owner: endsRun.owner, claimed: false }))
      )
        tell.events.push(runEvent(ids, endsRun.to));
      return message ? { message } : {};
    }),

  askApproval: ({ call, approval: request, line, ...ids }) =>
    outcome(async (tx, tell) => {
      const registered = await registerApprovalInTx(tx, request);
      tell.audit.push(...registered.audit);
      tell.events.push(...registered.events);
      await moveCall(tx, ids, tell, {
        ...call,
        from: ["new"],
        to: "pending",
        data: { approvalId: registered.approval.id },
      });
      const message = await writeLine(tx, ids, line(registered.approval));
      return { approval: registered.approval, ...(message ? { message } : {}) };
    }),

  finish: ({ owner, to, error, line, shared, ...ids }) =>
    outcome(async (tx, tell) => {
      // A turn that ends with a line frees its session in the line's write (appendMessageTx's `releasing`).
      const releasing = !shared && line !== undefined && to !== "waiting_approval";
      if (!(await endRun(tx, ids, { to, error, owner, claimed: !shared && !releasing }))) throw new LostOutcome("run");
      if (line)
        await appendMessageTx({
          tx,
          sessionId: ids.sessionId,
          message: line,
          ...(releasing ? { releasing: ids.runId } : {}),
        });
      tell.events.push(runEvent(ids, to));
      return {};
    }),

  fail: ({ owner, error, shared, ...ids }) =>
    outcome(async (tx, tell) => {
      if (await endRun(tx, ids, { to: "failed", error, owner, claimed: !shared }))
        tell.events.push(runEvent(ids, "failed"));
      return {};
    }),
};

/** The store the app records with (the one implementation; the interface is what a second one would meet). */
export function runStore(): RunStore {
  return prismaRunStore;
}
