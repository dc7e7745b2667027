import { NextResponse } from "next/server";
import { requireSession } from "@/lib/auth/guards";
import { signOutOtherDevices } from "@/lib/auth/devices";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { z } from "zod";

/** Signs out every device of the caller except this one. Not rate-limited: it only ever removes access. */
export const POST = handle(async (request: Request) => {
  const { claim } = await requireSession();
  await parseJsonBody(request, z.object({}).strict().optional());
  return NextResponse.json(await signOutOtherDevices({ claim }));
});
