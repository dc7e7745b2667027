import { requireRole } from "@/lib/auth/guards";
import { exportAudit } from "@/lib/admin/audit-service";
import { AuditExportQuery } from "@/lib/admin/schemas";
import { handle, parseSearchParams } from "@/lib/http/respond";

export const GET = handle(async (request: Request) => {
  const admin = await requireRole("admin");
  const query = parseSearchParams(request, AuditExportQuery);
  const out = await exportAudit({ query, actorId: admin.id });
  const stamp = new Date().toISOString().slice(0, 19).replaceAll(":", "-");
  return new Response(out.body, {
    headers: {
      "content-type": out.format === "json" ? "application/json; charset=utf-8" : "text/csv; charset=utf-8",
      "content-disposition": `attachment; filename="toolgate-audit-${stamp}.${out.format}"`,
      "x-export-rows": String(out.rows),
      "x-export-truncated": String(out.truncated),
      "cache-control": "no-store",
    },
  });
});
