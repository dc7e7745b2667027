import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { setUserActive } from "@/lib/auth/account-service";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

/** `{ active: false }` deactivates a user and ends their sessions at once; `{ active: true }` lets them sign in again. */
export const POST = handle(async (request: Request, { params }: Params) => {
  const actor = await requireRole("admin");
  const userId = parseWith(z.string().trim().min(1).max(200), (await params).id);
  const { active } = await parseJsonBody(request, z.object({ active: z.boolean() }).strict());
  return NextResponse.json({ user: await setUserActive({ actor, userId, active }) });
});
