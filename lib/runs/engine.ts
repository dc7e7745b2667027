import "server-only";
// The agent loop. The model is shown only the allowed tools (exposure gate, lib/runs/turn-setup.ts) and every
// call it makes goes through the execution gate (lib/runs/calls.ts) before anything runs. The SDK never
// executes tools here: the loop does, so a call to a hidden tool, malformed arguments or twenty calls at once
// all meet the same gate. Every message is persisted in order as it happens. A call that needs an owner's
// approval pauses the run (status waiting_approval); lib/runs/resume.ts continues it later.
//
// A run owns its turn: it is created together with its user message as the session's one active run (the
// lease, lib/db/runs.ts), and its model history is the transcript before its user message plus its own lines,
// never anything written after it began.
import { streamText, type ModelMessage } from "ai";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { listMessages, type MessageRow, type NewMessage } from "@/lib/db/messages";
import { findActiveRun, findRun, type RunRow, type RunStatus } from "@/lib/db/runs";
import type { SessionRow } from "@/lib/db/sessions";
import { handleCall, recordUnfinished } from "./calls";
import { holdRun, INSTANCE_ID, leaseMs } from "./lease";
import { guardModel } from "./model-guard";
import { noteRefusedCredentials, refusedCredentialsMessage, refusedCredentialsStatus } from "./model-errors";
import { recordOutcome } from "./recorder";
import { newRunId, runStore, type TurnKind } from "./store";
import { subagentServices } from "./subagents";
import { MAX_TURN_STEPS, prepareTurn, type Turn, type TurnEnv } from "./turn-setup";
import {
  assistantParts,
  modelToolCall,
  takesImagesInToolResults,
  toModelMessages,
  toolResultOutput,
  type StoredToolCall,
} from "./transcript";
import { publicErrorMessage } from "@/lib/public-error";
import { countTurn } from "@/lib/ops/metrics";
import { annotateSpan, inSpan } from "@/lib/ops/tracing";

export { MAX_CALLS_PER_STEP } from "./calls";
export type { TurnEnv, TurnUser } from "./turn-setup";

export const MAX_STEPS = MAX_TURN_STEPS;

export type TurnOptions = TurnEnv & {
  sessionId: string;
  /** the user's message; without it, the newest stored user message starts the turn */ text?: string;
};
export type TurnResult = { runId: string; status: Exclude<RunStatus, "running">; steps: number; error?: string };

/**
 * Starts a turn: in one transaction, the run (leased by this instance), the session's claim on it, and the
 * user's message. Refused with CONFLICT while another run is active in the session (see README, "A run owns
 * its turn": later messages are refused, not queued).
 */
export async function beginTurn({
  sessionId,
  runId,
  text,
  title,
  turn,
}: {
  sessionId: string;
  runId?: string;
  text?: string;
  title?: string;
  turn?: TurnKind;
}): Promise<{ runId: string; userSeq: number | null }> {
  const begun = await runStore().begin({ sessionId, runId, text, title, owner: INSTANCE_ID, leaseMs: leaseMs(), turn });
  if (begun.ok) return { runId: begun.runId, userSeq: begun.userSeq };
  const active = await findActiveRun({ sessionId });
  if (active?.status === "waiting_approval") {
    throw new AppError(
      "CONFLICT",
      "this session is waiting for an owner's approval; send your next message once it is decided, or press Stop",
      { runStatus: "waiting_approval", runId: active.id },
    );
  }
  throw new AppError("CONFLICT", "a turn is already running in this session; wait for it or stop it", {
    runStatus: active?.status ?? "running",
    runId: active?.id,
  });
}

/** A begun turn, held by this instance since before it began (beginHeldTurn). */
export type HeldTurn = {
  runId: string;
  userSeq: number | null;
  controller: AbortController;
  /** Lets go of the run (runTurn does, when it ends). */
  release: () => void;
};

/**
 * beginTurn, with the run held by this instance (lease.ts holdRun) from before it begins: a Stop asked on any instance
 * once the run exists finds it held (the column, then the controller or the run.stop event), so nothing needs to read
 * the run back for a stop asked meanwhile. Let go of again when the begin fails.
 */
export async function beginHeldTurn(args: Omit<Parameters<typeof beginTurn>[0], "runId">): Promise<HeldTurn> {
  const runId = newRunId();
  const controller = new AbortController();
  const release = holdRun(runId, controller);
  try {
    const { userSeq } = await beginTurn({ ...args, runId });
    return { runId, userSeq, controller, release };
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * A new turn: begins it (unless the caller did), holds its lease on this instance, and runs it. `session`: the row
 * the caller read in this request (lib/runs/turn-setup.ts prepareTurn's `known`).
 */
export async function runTurn(opts: TurnOptions & { held?: HeldTurn; session?: SessionRow }): Promise<TurnResult> {
  const { sessionId, text, held: given, session, ...env } = opts;
  const { runId, userSeq, controller, release } = given ?? (await beginHeldTurn({ sessionId, text }));
  const onAbort = () => controller.abort();
  env.abortSignal?.addEventListener("abort", onAbort, { once: true });
  if (env.abortSignal?.aborted) controller.abort();
  try {
    const run = { userSeq };
    let turn: Turn;
    try {
      turn = await prepareRun({ ...env, abortSignal: controller.signal }, sessionId, runId, session);
    } catch (error) {
      await recordOutcome({
        sessionId,
        runId,
        run: { from: ["running"], to: "failed", error: String(error), required: false },
      });
      throw error;
    }
    return await inSpan("toolgate.turn", { "toolgate.session_id": sessionId, "toolgate.run_id": runId }, () =>
      runSteps(turn, 0, run),
    );
  } finally {
    release();
    env.abortSignal?.removeEventListener("abort", onAbort);
  }
}

/** prepareTurn plus the subagent services bound to this run (given runTurn, so subagents never import the engine). */
export async function prepareRun(env: TurnEnv, sessionId: string, runId: string, known?: SessionRow): Promise<Turn> {
  const turn = await prepareTurn(env, sessionId, runId, known);
  turn.toolContext.services = { ...turn.toolContext.services, ...subagentServices(turn, runTurn) };
  return turn;
}

/** The run's own history: everything up to its user message, and its own lines after it. */
export function ownHistory(rows: MessageRow[], run: { id: string; userSeq: number | null }): MessageRow[] {
  if (run.userSeq === null) return rows.filter((r) => r.runId === run.id || r.runId === null);
  return rows.filter((r) => r.seq <= run.userSeq! || r.runId === run.id);
}

/** Runs model steps from the stored transcript until the model stops, the run pauses, or it is stopped. */
export async function runSteps(
  turn: Turn,
  stepsSoFar: number,
  known?: Pick<RunRow, "userSeq"> | null,
): Promise<TurnResult> {
  const { env, session, runId } = turn;
  // Only userSeq is read here, and it never changes once the run exists: a row the caller read serves.
  const run = known ?? (await findRun({ runId }));
  const resultOptions = { imagesInToolResults: takesImagesInToolResults(env.model.info.provider) };
  const messages: ModelMessage[] = toModelMessages(
    ownHistory(await listMessages({ sessionId: session.id }), { id: runId, userSeq: run?.userSeq ?? null }),
    resultOptions,
  );
  let steps = stepsSoFar;
  let status: TurnResult["status"] = "completed";
  let failure: string | undefined;
  let finalLine: NewMessage | undefined;
  try {
    while (steps < MAX_STEPS) {
      if (env.abortSignal?.aborted) {
        status = "aborted";
        break;
      }
      steps += 1;
      env.emit({ type: "start-step" });
      const step = await inSpan(
        "toolgate.model_step",
        { "toolgate.step": steps, "toolgate.provider": env.model.info.provider },
        () => streamStep(turn, messages, steps),
      );
      const line: NewMessage = { role: "assistant", content: step.text, parts: assistantParts(step.calls), runId };
      // The last answer and the run's end are one outcome: whoever sees the answer sees the run completed.
      if (step.calls.length === 0 && !step.aborted) {
        finalLine = line;
        break;
      }
      // The model's step (its text and the calls it asks for) is written only while this instance still holds
      // the run: after a takeover or an expired lease, nothing more of this turn reaches the transcript or runs.
      const kept = await recordOutcome({
        sessionId: session.id,
        runId,
        message: { append: line },
        run: { from: ["running"], to: "running", owner: INSTANCE_ID },
      });
      if (!kept.ok) {
        log("warn", "run_step_dropped", { runId, reason: "the run is no longer held by this instance" });
        status = "aborted";
        break;
      }
      const content = [
        ...(step.text ? [{ type: "text" as const, text: step.text }] : []),
        ...step.calls.map(modelToolCall),
      ];
      if (content.length) messages.push({ role: "assistant", content });
      if (step.aborted) {
        await recordUnfinished(turn, step.calls);
        status = "aborted";
        break;
      }
      let pending = false;
      for (const [index, call] of step.calls.entries()) {
        if (env.abortSignal?.aborted) {
          await recordUnfinished(turn, step.calls.slice(index));
          status = "aborted";
          break;
        }
        const outcome = await handleCall(turn, call, index);
        if (outcome.status === "pending") pending = true;
        else
          messages.push({
            role: "tool",
            content: [
              {
                type: "tool-result",
                toolCallId: call.toolCallId,
                toolName: call.toolName,
                output: toolResultOutput(outcome.output, resultOptions),
              },
            ],
          });
        if (outcome.status === "aborted") {
          // Stopped (here or from another instance) or the run is no longer this instance's: the rest of the step
          // never runs, and each of its calls gets its line now.
          await recordUnfinished(turn, step.calls.slice(index + 1));
          status = "aborted";
          break;
        }
      }
      env.emit({ type: "finish-step" });
      if (status === "aborted") break;
      if (pending) {
        status = "waiting_approval";
        break;
      }
    }
  } catch (error) {
    if (env.abortSignal?.aborted) status = "aborted";
    else {
      status = "failed";
      const refused = refusedCredentialsStatus(error);
      if (refused !== null) {
        failure = refusedCredentialsMessage(env.model.info.provider);
        await noteRefusedCredentials({
          ...env.model.info,
          status: refused,
          userId: env.user.id,
          sessionId: session.id,
          runId,
        });
      } else failure = publicErrorMessage(error, { event: "turn_failed" }).message;
      log("error", "turn_failed", { sessionId: session.id, runId, error: failure });
      env.emit({ type: "error", errorText: `The turn failed: ${failure}` });
    }
  }
  await finishRun(turn, status, failure, finalLine);
  env.emit(
    status === "aborted"
      ? { type: "abort", reason: "stopped" }
      : { type: "finish", finishReason: status === "failed" ? "error" : "stop" },
  );
  return { runId, status, steps, error: failure };
}

/** The run's end state (and the session's release) in one transaction; only while this instance holds it. */
async function finishRun(turn: Turn, status: TurnResult["status"], failure?: string, finalLine?: NewMessage) {
  countTurn(status);
  annotateSpan({ "toolgate.outcome": status });
  const recorded = await recordOutcome({
    sessionId: turn.session.id,
    runId: turn.runId,
    ...(finalLine ? { message: { append: finalLine } } : {}),
    run: { from: ["running"], to: status, error: failure ?? null, owner: INSTANCE_ID },
  });
  if (!recorded.ok)
    log("warn", "run_end_dropped", { runId: turn.runId, status, reason: "the run is no longer held by this instance" });
}

async function streamStep(
  turn: Turn,
  messages: ModelMessage[],
  stepIndex: number,
): Promise<{ text: string; calls: StoredToolCall[]; aborted: boolean }> {
  const { env } = turn;
  const result = streamText({
    model: guardModel(env.model.model),
    system: turn.system,
    messages,
    tools: turn.sdkTools,
    abortSignal: env.abortSignal,
    maxRetries: 0,
  });
  let text = "";
  const calls: StoredToolCall[] = [];
  let aborted = false;
  const textId = `${turn.runId}-${stepIndex}`;
  let textOpen = false;
  try {
    for await (const part of result.fullStream) {
      if (part.type === "text-delta") {
        if (!textOpen) {
          env.emit({ type: "text-start", id: textId });
          textOpen = true;
        }
        text += part.text;
        env.emit({ type: "text-delta", id: textId, delta: part.text });
      } else if (part.type === "tool-call") {
        calls.push({ toolCallId: part.toolCallId, toolName: part.toolName, input: part.input });
      } else if (part.type === "abort") {
        aborted = true;
      } else if (part.type === "error") {
        throw part.error instanceof Error
          ? part.error
          : new Error(String((part.error as { message?: string })?.message ?? part.error));
      }
    }
  } catch (error) {
    if (!env.abortSignal?.aborted) throw error;
    aborted = true;
  }
  if (textOpen) env.emit({ type: "text-end", id: textId });
  return { text, calls, aborted: aborted || Boolean(env.abortSignal?.aborted) };
}
