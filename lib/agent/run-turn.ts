import "server-only";
// The agent loop. The model is shown only the allowed tools (exposure gate, lib/agent/turn-setup.ts) and every
// call it makes goes through the execution gate (lib/agent/call-handler.ts) before anything runs. The SDK
// never executes tools here: the loop does, so a call to a hidden tool, malformed arguments or twenty calls at
// once all meet the same gate. Every message is persisted in order as it happens. A call that needs an
// owner's approval pauses the run (status waiting_approval); lib/agent/resume.ts continues it later.
import { streamText, type ModelMessage } from "ai";
import { log } from "@/lib/log";
import { appendMessage, listMessages } from "@/lib/db/messages";
import { createRun, updateRunStatus, type RunStatus } from "@/lib/db/runs";
import { handleCall, recordUnfinished } from "./call-handler";
import { prepareTurn, type Turn, type TurnEnv } from "./turn-setup";
import { assistantParts, toModelMessages, type StoredToolCall } from "./transcript";

export { MAX_CALLS_PER_STEP } from "./call-handler";
export type { TurnEnv, TurnUser } from "./turn-setup";

export const MAX_STEPS = 8;

export type TurnOptions = TurnEnv & { sessionId: string };
export type TurnResult = { runId: string; status: Exclude<RunStatus, "running">; steps: number; error?: string };

/** A new turn: the user's message is already stored. */
export async function runTurn(opts: TurnOptions): Promise<TurnResult> {
  const { sessionId, ...env } = opts;
  const run = await createRun({ sessionId });
  let turn: Turn;
  try {
    turn = await prepareTurn(env, sessionId, run.id);
  } catch (error) {
    await updateRunStatus({ runId: run.id, status: "failed", error: String(error) });
    throw error;
  }
  env.emit({ type: "start", messageId: run.id });
  return runSteps(turn, 0);
}

/** Runs model steps from the stored transcript until the model stops, the run pauses, or it is stopped. */
export async function runSteps(turn: Turn, stepsSoFar: number): Promise<TurnResult> {
  const { env, session, runId } = turn;
  const messages: ModelMessage[] = toModelMessages(await listMessages({ sessionId: session.id }));
  let steps = stepsSoFar;
  let status: TurnResult["status"] = "completed";
  let failure: string | undefined;
  try {
    while (steps < MAX_STEPS) {
      steps += 1;
      env.emit({ type: "start-step" });
      const step = await streamStep(turn, messages, steps);
      await appendMessage({ sessionId: session.id, message: { role: "assistant", content: step.text, parts: assistantParts(step.calls), runId } });
      const content = [
        ...(step.text ? [{ type: "text" as const, text: step.text }] : []),
        ...step.calls.map((c) => ({ type: "tool-call" as const, toolCallId: c.toolCallId, toolName: c.toolName, input: c.input ?? {} })),
      ];
      if (content.length) messages.push({ role: "assistant", content });
      if (step.aborted) {
        await recordUnfinished(turn, step.calls);
        status = "aborted";
        break;
      }
      if (step.calls.length === 0) break;
      let pending = false;
      for (const [index, call] of step.calls.entries()) {
        if (env.abortSignal?.aborted) {
          await recordUnfinished(turn, step.calls.slice(index));
          status = "aborted";
          break;
        }
        const outcome = await handleCall(turn, call, index);
        if (outcome.status === "pending") pending = true;
        else messages.push({ role: "tool", content: [{ type: "tool-result", toolCallId: call.toolCallId, toolName: call.toolName, output: { type: "json", value: (outcome.output ?? null) as never } }] });
        if (outcome.status === "aborted") status = "aborted";
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
      failure = error instanceof Error ? error.message : String(error);
      log("error", "turn_failed", { sessionId: session.id, runId, error: failure });
      env.emit({ type: "error", errorText: `The turn failed: ${failure}` });
    }
  }
  await updateRunStatus({ runId, status, error: failure });
  // An owner may have decided before the run was marked waiting (the approval is visible as soon as it is
  // registered); that decision's resume found the run still running and did nothing. Check once more now.
  if (status === "waiting_approval") {
    void import("./resume").then(({ resumeRun }) => resumeRun({ runId, model: env.model })).catch((error) => log("warn", "resume_check_failed", { runId, error: String(error) }));
  }
  env.emit(status === "aborted" ? { type: "abort", reason: "stopped" } : { type: "finish", finishReason: status === "failed" ? "error" : "stop" });
  return { runId, status, steps, error: failure };
}

async function streamStep(turn: Turn, messages: ModelMessage[], stepIndex: number): Promise<{ text: string; calls: StoredToolCall[]; aborted: boolean }> {
  const { env } = turn;
  const result = streamText({ model: env.model.model, system: turn.system, messages, tools: turn.sdkTools, abortSignal: env.abortSignal, maxRetries: 0 });
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
        throw part.error instanceof Error ? part.error : new Error(String((part.error as { message?: string })?.message ?? part.error));
      }
    }
  } catch (error) {
    if (!env.abortSignal?.aborted) throw error;
    aborted = true;
  }
  if (textOpen) env.emit({ type: "text-end", id: textId });
  return { text, calls, aborted: aborted || Boolean(env.abortSignal?.aborted) };
}
