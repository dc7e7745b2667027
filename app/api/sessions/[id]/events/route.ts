import { requireSession, stillAuthorized } from "@/lib/auth/guards";
import { requireOwnedSession } from "@/lib/runs/sessions";
import { eventStreamResponse } from "@/lib/events/sse";
import { handle, parseWith } from "@/lib/http/respond";
import { SessionIdSchema } from "@/lib/http/schemas";

export const dynamic = "force-dynamic";

/** Live updates of one session for its owner: approvals of its calls and runs resuming after them. */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { user, claim } = await requireSession();
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  await requireOwnedSession({ user, sessionId });
  return eventStreamResponse(request, (event) => event.sessionId === sessionId, { stillAllowed: stillAuthorized(claim) });
});
