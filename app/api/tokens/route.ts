import { NextResponse } from "next/server";
import { z } from "zod";
import { requireUser } from "@/lib/auth/guards";
import { consumeWriteQuota } from "@/lib/auth/write-quota";
import { CreateTokenBody, createAccessToken, listTokens } from "@/lib/auth/access-tokens";
import { handle, parseJsonBody, parseSearchParams } from "@/lib/http/respond";

const ListQuery = z.object({ scope: z.enum(["mine", "all"]).default("mine") }).strict();

/** Own tokens; `?scope=all` lists everyone's for an admin. Secrets are never listed. */
export const GET = handle(async (request: Request) => {
  const user = await requireUser();
  const { scope } = parseSearchParams(request, ListQuery);
  return NextResponse.json({ tokens: await listTokens({ user, all: scope === "all" }) });
});

/** A new token for the signed-in user: the secret is in this answer and nowhere else, ever. */
export const POST = handle(async (request: Request) => {
  const user = await requireUser();
  const body = await parseJsonBody(request, CreateTokenBody);
  await consumeWriteQuota("credential-writes", user.id);
  const { token, view } = await createAccessToken({ user, body });
  return NextResponse.json({ token, accessToken: view }, { status: 201, headers: { "cache-control": "no-store" } });
});
