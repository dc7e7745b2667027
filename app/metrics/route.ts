// Prometheus metrics (lib/ops/metrics.ts): loopback, or a bearer METRICS_TOKEN (lib/ops/metrics-access.ts).
// Access is decided before anything is collected.
import { NextResponse } from "next/server";
import { AppError } from "@/lib/errors";
import { jsonError } from "@/lib/http/respond";
import { renderMetrics } from "@/lib/ops/metrics";
import { metricsAccess } from "@/lib/ops/metrics-access";
import { registerScrapeSources } from "@/lib/ops/readiness";

export const dynamic = "force-dynamic";

export async function GET(request: Request) {
  const access = metricsAccess(request.headers);
  if (!access.ok)
    return jsonError(
      new AppError(
        access.status === 401 ? "UNAUTHENTICATED" : "FORBIDDEN",
        access.message,
        undefined,
        access.status === 401 ? { "www-authenticate": 'Bearer realm="metrics"' } : undefined,
      ),
    );
  registerScrapeSources();
  const { body, contentType } = await renderMetrics();
  return new NextResponse(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
}
