import "server-only";
// Hosting a turn for HTTP: the turn runs detached from the response, so a client that disconnects
// mid-stream does not stop it (every message is still persisted); only Stop aborts it.
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import { appendMessage } from "@/lib/db/messages";
import { updateSessionTitle } from "@/lib/db/sessions";
import { findActiveRun } from "@/lib/db/runs";
import { publishEvent, subscribeEvents } from "@/lib/events/bus";
import type { CurrentUser } from "@/lib/auth/guards";
import { getConfiguredModel } from "./model";
import { runTurn, type TurnResult } from "./run-turn";
import type { ModelChoice } from "./turn-setup";
import { requireOwnedSession } from "./sessions";

const globalForRuns = globalThis as unknown as { toolgateActiveRuns?: Map<string, { controller: AbortController; done: Promise<TurnResult> }> };
const activeRuns = (globalForRuns.toolgateActiveRuns ??= new Map());

export function isTurnActive(sessionId: string): boolean {
  return activeRuns.has(sessionId);
}

export async function startChatTurn({
  user,
  sessionId,
  text,
  model,
}: {
  user: CurrentUser;
  sessionId: string;
  text: string;
  model?: ModelChoice;
}): Promise<{ stream: ReadableStream<UIMessageChunk>; done: Promise<TurnResult> }> {
  const config = loadConfig();
  if (text.length > config.MAX_MESSAGE_CHARS) throw new AppError("PAYLOAD_TOO_LARGE", `message is longer than ${config.MAX_MESSAGE_CHARS} characters`);
  if (text.trim() === "") throw new AppError("VALIDATION_FAILED", "message text is empty");
  const session = await requireOwnedSession({ user, sessionId });
  if (activeRuns.has(sessionId)) throw new AppError("CONFLICT", "a turn is already running in this session; wait for it or stop it");
  const chosen = model ?? getConfiguredModel();
  const controller = new AbortController();

  let sink = null as ReadableStreamDefaultController<UIMessageChunk> | null;
  const stream = new ReadableStream<UIMessageChunk>({
    start(c) {
      sink = c;
    },
    cancel() {
      sink = null; // the client went away; the turn goes on
    },
  });
  const emit = (chunk: UIMessageChunk) => {
    try {
      sink?.enqueue(chunk);
    } catch {
      sink = null;
    }
  };

  const done = (async () => {
    try {
      await appendMessage({ sessionId, message: { role: "user", content: text } });
      if (session.title === "New chat") await updateSessionTitle({ sessionId, title: text.slice(0, 60) });
      return await runTurn({ sessionId, user, model: chosen, emit, abortSignal: controller.signal, workspaceRoot: config.workspaceRoot });
    } catch (error) {
      log("error", "turn_crashed", { sessionId, error: String(error) });
      emit({ type: "error", errorText: error instanceof Error ? error.message : String(error) });
      return { runId: "", status: "failed" as const, steps: 0, error: String(error) };
    } finally {
      activeRuns.delete(sessionId);
      try {
        sink?.close();
      } catch {
        // already closed
      }
    }
  })();
  activeRuns.set(sessionId, { controller, done });
  listenForRemoteStops();
  return { stream, done };
}

/** Stop: aborts the model stream and every running tool; the loop persists what happened. */
export async function stopChatTurn({ user, sessionId }: { user: CurrentUser; sessionId: string }): Promise<{ stopped: boolean }> {
  await requireOwnedSession({ user, sessionId });
  const active = activeRuns.get(sessionId);
  if (!active) {
    // The turn may be running on another instance: tell every instance; the one holding it stops it.
    const run = await findActiveRun({ sessionId });
    if (!run) return { stopped: false };
    await publishEvent({ type: "run.stop", scope: "session", sessionId, payload: { runId: run.id } });
    return { stopped: true };
  }
  active.controller.abort();
  await active.done;
  return { stopped: true };
}

const globalForStop = globalThis as unknown as { toolgateStopListener?: Promise<unknown> };

/** Each instance listens once for stop requests made on other instances. */
function listenForRemoteStops() {
  globalForStop.toolgateStopListener ??= subscribeEvents((event) => {
    if (event.type === "run.stop" && event.sessionId) activeRuns.get(event.sessionId)?.controller.abort();
  }).catch((error) => log("warn", "stop_listener_failed", { error: String(error) }));
}
