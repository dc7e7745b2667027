import { createUIMessageStreamResponse } from "ai";
import { requireUser } from "@/lib/auth/guards";
import { startChatTurn } from "@/lib/agent/chat";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { ChatBody, messageText } from "@/lib/http/schemas";

export const maxDuration = 300;

export const POST = handle(async (request: Request) => {
  const body = await parseJsonBody(request, ChatBody, 2_000_000);
  const user = await requireUser();
  const { stream } = await startChatTurn({ user, sessionId: body.sessionId, text: messageText(body.message) });
  return createUIMessageStreamResponse({ stream });
});
