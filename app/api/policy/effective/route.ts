import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { effectiveMatrix, toMatrixContext } from "@/lib/admin/policy-service";
import { EffectiveBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";

export const POST = handle(async (request: Request) => {
  const body = await parseJsonBody(request, EffectiveBody);
  await requireRole("admin");
  return NextResponse.json(await effectiveMatrix({ context: toMatrixContext(body.context), draft: body.document }));
});
