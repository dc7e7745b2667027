import { requireSession, stillAuthorized } from "@/lib/auth/guards";
import { eventStreamResponse } from "@/lib/events/sse";
import { handle } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** approval.requested / approval.resolved / approval.expired for the owners' inbox; resumes from Last-Event-ID. */
export const GET = handle(async (request: Request) => {
  const { claim } = await requireSession("owner");
  // Closes when the owner role is removed or the session is revoked.
  return eventStreamResponse(request, (event) => event.scope === "approvals", { stillAllowed: stillAuthorized(claim, "owner") });
});
