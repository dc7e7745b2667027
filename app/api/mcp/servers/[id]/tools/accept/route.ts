import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { acceptToolChange } from "@/lib/admin/mcp-service";
import { handle, parseJsonBody, parseWith } from "@/lib/http/respond";
import { MCP_SERVER_ID_PATTERN } from "@/lib/policy";

const Params = z.object({ id: z.string().min(1).max(32).regex(MCP_SERVER_ID_PATTERN, "not an MCP server id") });
// The hash names the exact definition the admin reviewed: a change the server made since is not accepted with it.
const Body = z
  .object({ tool: z.string().min(1).max(256), hash: z.string().regex(/^[0-9a-f]{64}$/, "not a definition hash") })
  .strict();

// Accepts a held tool definition change (issue 36): it becomes the pinned definition, audited with the admin.
export const POST = handle(async (request: Request, { params }: { params: Promise<{ id: string }> }) => {
  const actor = await requireRole("admin");
  const { id } = parseWith(Params, await params);
  const { tool, hash } = await parseJsonBody(request, Body);
  return NextResponse.json({
    server: await acceptToolChange({ serverId: id, toolName: tool, hash, actorId: actor.id }),
  });
});
