import { NextResponse } from "next/server";
import { requireRole } from "@/lib/auth/guards";
import { listConnectedClients } from "@/lib/gateway/clients";
import { handle } from "@/lib/http/respond";

// The gateway's outside clients (tokens and OAuth grants that used /mcp): whose, last seen, latest calls.
export const GET = handle(async () => {
  await requireRole("admin");
  return NextResponse.json({ clients: await listConnectedClients() });
});
