import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { refreshPluginTools } from "@/lib/admin/mcp-service";
import { effectiveMatrix, toMatrixContext } from "@/lib/admin/policy-service";
import { EffectiveBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { BODY_LIMITS } from "@/lib/http/body";

export const POST = handle(async (request: Request) => {
  await requireRole("admin");
  const body = await parseJsonBody(request, EffectiveBody, BODY_LIMITS.policy);
  await refreshPluginTools();
  return NextResponse.json(await effectiveMatrix({ context: toMatrixContext(body.context), draft: body.document }));
});
