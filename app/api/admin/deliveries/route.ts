import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { handle, parseSearchParams } from "@/lib/http/respond";
import { listDeliveryLog } from "@/lib/notify/delivery-log";

const Query = z
  .object({
    approvalId: z.string().trim().min(1).max(100).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(100),
  })
  .strict();

/** The notification delivery log (webhook, e-mail, chat), newest first. */
export const GET = handle(async (request: Request) => {
  await requireRole("admin");
  const query = parseSearchParams(request, Query);
  return NextResponse.json({ deliveries: await listDeliveryLog(query) }, { headers: { "cache-control": "no-store" } });
});
