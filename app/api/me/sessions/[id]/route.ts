import { NextResponse } from "next/server";
import { requireSession } from "@/lib/auth/guards";
import { signOutDevice } from "@/lib/auth/devices";
import { handle, parseWith } from "@/lib/http/respond";
import { IdSchema } from "@/lib/http/approval-schemas";

/** Signs one of the caller's devices out; another user's session id is a 404 like an unknown one. */
export const DELETE = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const { claim } = await requireSession();
  const id = parseWith(IdSchema, (await params).id);
  return NextResponse.json(await signOutDevice({ claim, sessionId: id }));
});
