import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { replayDraft } from "@/lib/admin/replay-service";
import { ReplayBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

export const POST = handle(async (request: Request) => {
  const body = await parseJsonBody(request, ReplayBody);
  await requireRole("admin");
  return NextResponse.json(await replayDraft(body));
});
