import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { getPolicy, savePolicy } from "@/lib/admin/policy-service";
import { SavePolicyBody } from "@/lib/admin/schemas";
import { handle, parseJsonBody } from "@/lib/http/respond";
import { encryptMcpHeaders } from "@/lib/tools/mcp";

export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json(await getPolicy());
});

export const PUT = handle(async (request: Request) => {
  const body = await parseJsonBody(request, SavePolicyBody);
  const actor = await requireRole("admin");
  // MCP server headers (API tokens) are stored encrypted, never as submitted.
  return NextResponse.json(await savePolicy({ actor, ...body, document: encryptMcpHeaders(body.document) }));
});
