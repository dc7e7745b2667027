// Liveness: the process serves HTTP. No database, no session, nothing an outsider learns beyond "up".
import { NextResponse } from "next/server";

export const dynamic = "force-dynamic";

export function GET() {
  return NextResponse.json({ status: "ok" }, { headers: { "cache-control": "no-store" } });
}
