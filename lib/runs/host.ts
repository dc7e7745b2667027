import "server-only";
// Hosting a turn for HTTP: the turn runs detached from the response, so a client that disconnects mid-stream
// does not stop it (every message is still persisted); only Stop aborts it — from any instance, because the
// run, its lease and the stop request live in the database (lib/db/runs.ts, lib/runs/stop.ts).
import type { UIMessageChunk } from "ai";
import { AppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { log } from "@/lib/log";
import type { CurrentUser } from "@/lib/auth/guards";
import { getConfiguredModel } from "./model";
import { beginHeldTurn, runTurn, type TurnResult } from "./engine";
import { resumeWhenReady } from "./resume";
import { requestStop } from "./stop";
import type { ModelChoice } from "./turn-setup";
import { DEFAULT_TITLE, requireOwnedSession } from "@/lib/sessions/access";
import { publicErrorMessage } from "@/lib/public-error";

export async function startChatTurn({
  user,
  sessionId,
  text,
  model,
  rewindFrom,
  answerTo,
}: {
  user: CurrentUser;
  sessionId: string;
  text: string;
  model?: ModelChoice;
  /** Edit or regenerate: the user message the transcript is truncated at (this text replaces it). */
  rewindFrom?: string;
  /** The ask_user call this message answers (checked: offered, not answered yet). */
  answerTo?: string;
}): Promise<{ stream: ReadableStream<UIMessageChunk>; done: Promise<TurnResult>; runId: string }> {
  const config = loadConfig();
  if (text.length > config.MAX_MESSAGE_CHARS)
    throw new AppError("PAYLOAD_TOO_LARGE", `message is longer than ${config.MAX_MESSAGE_CHARS} characters`);
  if (text.trim() === "") throw new AppError("VALIDATION_FAILED", "message text is empty");
  const session = await requireOwnedSession({ user, sessionId });
  // The session's own model, resolved before the run is claimed: one no longer configured refuses the turn cleanly.
  const chosen = model ?? getConfiguredModel({ id: session.model });
  // The run, the session's claim on it, the user's message, a first turn's title and the event that tells the
  // session's other tabs commit together; CONFLICT (409) while another run of this session is active on any
  // instance, including one waiting for an approval.
  const title = session.title === DEFAULT_TITLE ? text.slice(0, 60) : undefined;
  const held = await beginHeldTurn({ sessionId, text, title, turn: { actorId: user.id, rewindFrom, answerTo } });
  const { runId } = held;

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

  // The stream starts as soon as the run exists: the first byte reaches the client before the policy, the model
  // and the tools are read (a failure there still ends the stream with an error part).
  emit({ type: "start", messageId: runId, messageMetadata: { createdAt: new Date().toISOString() } });

  const done = (async () => {
    try {
      const result = await runTurn({
        held,
        sessionId,
        session,
        user,
        model: chosen,
        emit,
        workspaceRoot: config.workspaceRoot,
      });
      if (result.status === "waiting_approval") void resumeWhenReady(runId, model);
      return result;
    } catch (error) {
      log("error", "turn_crashed", { sessionId, error: String(error) });
      emit({ type: "error", errorText: publicErrorMessage(error, { event: "turn_crashed" }).message });
      return { runId, status: "failed" as const, steps: 0, error: String(error) };
    } finally {
      try {
        sink?.close();
      } catch {
        // already closed
      }
    }
  })();
  return { stream, done, runId };
}

/** Stop: aborts the model stream and every running tool wherever the run is held; a paused run ends here. */
export async function stopChatTurn({
  user,
  sessionId,
}: {
  user: CurrentUser;
  sessionId: string;
}): Promise<{ stopped: boolean }> {
  await requireOwnedSession({ user, sessionId });
  const { stopped } = await requestStop({ sessionId, by: user.id });
  return { stopped };
}
