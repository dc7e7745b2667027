// Readiness: 200 when this instance can serve turns, 503 naming the failing checks (lib/ops/readiness.ts).
// Unauthenticated, for load balancers and orchestrators: it says which part is down, never a host or a version.
import { NextResponse } from "next/server";
import { checkReadiness } from "@/lib/ops/readiness";

export const dynamic = "force-dynamic";

export async function GET() {
  const { ready, checks } = await checkReadiness();
  return NextResponse.json(
    { status: ready ? "ready" : "not_ready", checks },
    { status: ready ? 200 : 503, headers: { "cache-control": "no-store" } },
  );
}
