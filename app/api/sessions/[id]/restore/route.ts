import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { restoreChatSession } from "@/lib/sessions/access";
import { handle, parseWith } from "@/lib/http/respond";
import { SessionIdSchema } from "@/lib/http/schemas";

/** Undo of a delete: only the owner's own deleted chat; anything else is 404. */
export const POST = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const user = await requireUser();
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  await consumeWriteQuota("session-writes", user.id);
  return NextResponse.json(await restoreChatSession({ user, sessionId }));
});
