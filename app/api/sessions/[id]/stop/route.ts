import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { stopChatTurn } from "@/lib/runs/host";
import { handle, parseWith } from "@/lib/http/respond";
import { SessionIdSchema } from "@/lib/http/schemas";

export const POST = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const sessionId = parseWith(SessionIdSchema, (await params).id);
  const user = await requireUser();
  return NextResponse.json(await stopChatTurn({ user, sessionId }));
});
