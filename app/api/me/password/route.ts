import { NextResponse } from "next/server";
import { z } from "zod";
import { requireUser } from "@/lib/auth/guards";
import { changeOwnPassword } from "@/lib/auth/account-service";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { clientAddress } from "@/lib/auth/throttle";
import { handle, parseJsonBody } from "@/lib/http/respond";

const Body = z
  .object({ currentPassword: z.string().min(1).max(1024), newPassword: z.string().min(8).max(1024) })
  .strict();

/**
 * A new password ends every session of the user, this one included: sign in again with it. The one route a user who
 * must replace an admin-issued password may call (besides sign-out and the session read).
 */
export const POST = handle(async (request: Request) => {
  const user = await requireUser({ allowPasswordChange: true });
  const body = await parseJsonBody(request, Body);
  await consumeWriteQuota("credential-writes", user.id);
  await changeOwnPassword({ user, address: clientAddress(request.headers), ...body });
  return NextResponse.json({ ok: true, signedOut: true });
});
