import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { getChatSession } from "@/lib/runs/sessions";
import { changeSessionMode, deleteChatSession, renameChatSession } from "@/lib/sessions/access";
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
  await consumeWriteQuota("session-writes", user.id);
  const body = await parseJsonBody(request, PatchSessionBody);
  if (body.title !== undefined)
    return NextResponse.json(await renameChatSession({ user, sessionId, title: body.title }));
  return NextResponse.json(await changeSessionMode({ user, sessionId, mode: body.mode! }));
});

/** Soft delete; POST /api/sessions/[id]/restore undoes it. */
export const DELETE = handle(async (_request: Request, { params }: Params) => {
  const user = await requireUser();
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  await consumeWriteQuota("session-writes", user.id);
  return NextResponse.json(await deleteChatSession({ user, sessionId }));
});
