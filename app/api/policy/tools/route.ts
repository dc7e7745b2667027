import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { refreshPluginTools } from "@/lib/admin/mcp-service";
import { handle } from "@/lib/http/respond";

// The tool list the editor checks drafts against (names, groups, declared modes, plugin ids).
export const GET = handle(async () => {
  await requireRole("admin");
  await refreshPluginTools();
  return NextResponse.json({ tools: getToolRegistry().meta() });
});
