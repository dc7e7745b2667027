import { NextResponse } from "next/server";
import { z } from "zod";
import { requireUser } from "@/lib/auth/guards";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { listOwnRestorable, restoreOwnCommand } from "@/lib/tools/workspace-restore";

const Body = z
  .object({ restoreId: z.string().regex(/^[A-Za-z0-9_-]{1,120}$/, "a restore id from an exec result") })
  .strict();

/** What the signed-in member's recent commands deleted or overwrote, newest first. */
export const GET = handle(async () => {
  const user = await requireUser();
  return NextResponse.json({ restorable: await listOwnRestorable({ userId: user.id }) });
});

/** Puts back what one command deleted or overwrote; what is there now moves to a trash of its own. */
export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  const { restoreId } = await parseJsonBody(request, Body);
  return NextResponse.json(await restoreOwnCommand({ userId: user.id, restoreId }));
});
