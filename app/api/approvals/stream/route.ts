import { currentClaim } from "@/lib/auth/guards";
import { eventStreamResponse } from "@/lib/events/sse";
import { authorizeEventStream } from "@/lib/http/event-streams";
import { handle } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/**
 * approval.requested / approval.resolved / approval.expired for the owners' inbox; resumes from Last-Event-ID.
 * Under the app's own server (scripts/server.mjs) the lean handler in lib/http/lean-streams.ts serves this path with
 * the same checks; this route serves it under `next dev` / `next start`.
 */
export const GET = handle(async (request: Request) => {
  const { visible, check, userId } = await authorizeEventStream(await currentClaim(), { kind: "approvals" });
  return eventStreamResponse(request, visible, { check, userId });
});
