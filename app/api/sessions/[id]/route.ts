import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { changeSessionMode, getChatSession } from "@/lib/runs/sessions";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";
import { PatchSessionBody, SessionIdSchema } from "@/lib/http/schemas";

type Params = { params: Promise<{ id: string }> };

export const GET = handle(async (_request: Request, { params }: Params) => {
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  const user = await requireUser();
  return NextResponse.json(await getChatSession({ user, sessionId }));
});

export const PATCH = handle(async (request: Request, { params }: Params) => {
  const user = await requireUser();
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  const body = await parseJsonBody(request, PatchSessionBody);
  return NextResponse.json(await changeSessionMode({ user, sessionId, mode: body.mode }));
});
