import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { ConsentBody, decideAuthorization } from "@/lib/oauth/server";

/**
 * The consent page's answer (app/oauth/authorize). Same-origin JSON only (handle: no HTML form or simple
 * cross-site request can send it), for the signed-in user; the answer names where the browser goes next.
 */
export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  await consumeWriteQuota("oauth-writes", user.id);
  const body = await parseJsonBody(request, ConsentBody);
  return NextResponse.json(await decideAuthorization({ user, body }), { headers: { "cache-control": "no-store" } });
});
