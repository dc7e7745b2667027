import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { createChatSession } from "@/lib/runs/sessions";
import { listChatSessions } from "@/lib/sessions/access";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { CreateSessionBody } from "@/lib/http/schemas";

export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  await consumeWriteQuota("session-writes", user.id);
  const body = await parseJsonBody(request, CreateSessionBody);
  return NextResponse.json(
    await createChatSession({ user, title: body?.title, agentId: body?.agentId, model: body?.model }),
    { status: 201 },
  );
});

export const GET = handle(async () => {
  const user = await requireUser();
  return NextResponse.json({ sessions: await listChatSessions({ user }) });
});
