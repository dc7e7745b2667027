import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { importPolicy } from "@/lib/admin/import-service";
import { ImportBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

// Maps an OpenClaw config onto the policy document (the given draft, else the saved one); saves nothing.
export const POST = handle(async (request: Request) => {
  await requireRole("admin");
  const body = await parseJsonBody(request, ImportBody, 2_000_000);
  return NextResponse.json(await importPolicy(body));
});
