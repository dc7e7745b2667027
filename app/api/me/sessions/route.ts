import { NextResponse } from "next/server";
import { requireSession } from "@/lib/auth/guards";
import { listMyDevices } from "@/lib/auth/devices";
import { handle } from "@/lib/http/respond";
import type { DevicesResponseSchema } from "@/lib/auth/device-views";
import type { z } from "zod";

/** The caller's signed-in devices (live sessions), this one marked `current`. */
export const GET = handle(async () => {
  const { claim } = await requireSession();
  const body: z.infer<typeof DevicesResponseSchema> = { sessions: await listMyDevices({ claim }) };
  return NextResponse.json(body, { headers: { "cache-control": "no-store" } });
});
