import { NextResponse } from "next/server";
import { requireUser } from "@/lib/auth/guards";
import { handle } from "@/lib/http/respond";
import { listUsableAgents } from "@/lib/runs/agents";

/** The agents this user may start a chat as (the policy's usableBy decides). */
export const GET = handle(async () => {
  const user = await requireUser();
  return NextResponse.json({ agents: await listUsableAgents({ user }) });
});
