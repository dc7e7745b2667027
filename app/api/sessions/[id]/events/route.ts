import { currentClaim } from "@/lib/auth/guards";
import { eventStreamResponse } from "@/lib/events/sse";
import { authorizeEventStream } from "@/lib/http/event-streams";
import { handle } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/**
 * Live updates of one session for its owner: approvals of its calls and runs resuming after them. Served by the lean
 * handler (lib/http/lean-streams.ts) under the app's own server, with the same checks.
 */
export const GET = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { visible, check, userId } = await authorizeEventStream(await currentClaim(), {
    kind: "session",
    sessionId: (await params).id,
  });
  return eventStreamResponse(request, visible, { check, userId });
});
