import { requireRole } from "@/lib/auth/guards";
import { eventStreamResponse } from "@/lib/events/sse";
import { handle } from "@/lib/http/respond";

export const dynamic = "force-dynamic";

/** approval.requested / approval.resolved / approval.expired for the owners' inbox; resumes from Last-Event-ID. */
export const GET = handle(async (request: Request) => {
  await requireRole("owner");
  return eventStreamResponse(request, (event) => event.scope === "approvals");
});
