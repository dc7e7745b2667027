import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { replayDraft } from "@/lib/admin/replay-service";
import { ReplayBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { BODY_LIMITS } from "@/lib/http/body";

export const POST = handle(async (request: Request) => {
  await requireRole("admin");
  const body = await parseJsonBody(request, ReplayBody, BODY_LIMITS.policy);
  return NextResponse.json(await replayDraft(body));
});
