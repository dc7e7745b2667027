import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { getToolRegistry } from "@/lib/agent/tool-catalog";
import { handle } from "@/lib/http/respond";

// The tool list the editor checks drafts against (names, groups, declared modes, plugin ids).
export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ tools: getToolRegistry().meta() });
});
