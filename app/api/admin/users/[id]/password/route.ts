import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { resetPassword } from "@/lib/admin/users-service";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";

type Params = { params: Promise<{ id: string }> };

/** Resets a user's password to a new one-time password (shown once) and ends their sessions. */
export const POST = handle(async (request: Request, { params }: Params) => {
  const actor = await requireRole("admin");
  const userId = parseWith(z.string().trim().min(1).max(200), (await params).id);
  await parseJsonBody(request, z.object({}).strict().optional());
  return NextResponse.json(await resetPassword({ actor, userId }), { headers: { "cache-control": "no-store" } });
});
