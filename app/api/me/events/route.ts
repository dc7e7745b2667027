import { currentClaim } from "@/lib/auth/guards";
import { eventStreamResponse } from "@/lib/events/sse";
import { authorizeEventStream } from "@/lib/http/event-streams";
import { handle } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/**
 * One browser tab's live stream: the signed-in person's account changes, the owners' inbox for an owner, and with
 * `?session=<id>` their open chat (lib/http/event-streams.ts). The session is re-checked while it is open: once it is
 * revoked (deactivation, a removed role) the stream closes and the page signs the tab out. Served by the lean
 * handler (lib/http/lean-streams.ts) under the app's own server, with the same checks.
 */
export const GET = handle(async (request: Request) => {
  const session = new URL(request.url).searchParams.get("session");
  const { visible, check, userId } = await authorizeEventStream(await currentClaim(), {
    kind: "tab",
    ...(session === null ? {} : { sessionId: session }),
  });
  return eventStreamResponse(request, visible, { check, userId });
});
