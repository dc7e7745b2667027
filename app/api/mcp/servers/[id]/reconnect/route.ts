import { NextResponse } from "next/server";
import { z } from "zod";
import { requireRole } from "@/lib/auth/guards";
import { reconnectServer } from "@/lib/admin/mcp-service";
import { handle, parseWith } from "@/lib/http/respond";
import { MCP_SERVER_ID_PATTERN } from "@/lib/policy";

const Params = z.object({ id: z.string().min(1).max(32).regex(MCP_SERVER_ID_PATTERN, "not an MCP server id") });

// Drops the server's connection and rediscovers its tools now (bounded by its timeout); answers with its status.
export const POST = handle(async (_request: Request, { params }: { params: Promise<{ id: string }> }) => {
  await requireRole("admin");
  const { id } = parseWith(Params, await params);
  return NextResponse.json({ server: await reconnectServer({ serverId: id }) });
});
