import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listMcpServers } from "@/lib/admin/mcp-service";
import { handle } from "@/lib/http/respond";

// Every configured MCP server: state, tools, hidden tools, last error and stderr tail. Never waits on a server.
export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ servers: await listMcpServers() });
});
