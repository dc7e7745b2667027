import { createUIMessageStreamResponse } from "ai";
import { requireUser } from "@/lib/auth/guards";
import { consumeUserQuota } from "@/lib/auth/throttle";
import { startChatTurn } from "@/lib/runs/host";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { chatBodyLimit } from "@/lib/http/body";
import { loadConfig } from "@/lib/config";
import { ChatBody, messageText } from "@/lib/http/schemas";
import { EVENT_STREAM_HEADERS } from "@/lib/events/sse";

export const maxDuration = 300;

export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  await consumeUserQuota("chat", user.id);
  const body = await parseJsonBody(request, ChatBody, chatBodyLimit(loadConfig().MAX_MESSAGE_CHARS));
  const { stream } = await startChatTurn({
    user,
    sessionId: body.sessionId,
    text: messageText(body.message),
    rewindFrom: body.rewindFrom,
    answerTo: body.answerTo,
  });
  // no-transform: Next.js gzips a response the client accepts gzip for, and a gzip flush completes on the event loop,
  // so each part reached the client only when the turn next let the loop run (the first byte at the turn's end).
  return createUIMessageStreamResponse({ stream, headers: { "cache-control": EVENT_STREAM_HEADERS["cache-control"] } });
});
