// What GET /api/admin/audit answers (lib/admin/audit-service.ts builds it), defined once for the service and the
// audit page (no server-only import: components import this file).
import { z } from "zod";

export const AuditRowSchema = z.object({
  seq: z.number(),
  at: z.string(),
  action: z.string(),
  actorId: z.string().nullable(),
  actorEmail: z.string().nullable(),
  sessionId: z.string().nullable(),
  toolName: z.string().nullable(),
  callId: z.string().nullable(),
  decision: z.string().nullable(),
  layer: z.string().nullable(),
  rule: z.string().nullable(),
  details: z.unknown(),
});
export type AuditRow = z.infer<typeof AuditRowSchema>;

export const AuditResponseSchema = z.object({ entries: z.array(AuditRowSchema), nextCursor: z.number().nullable() });
export type AuditResponse = z.infer<typeof AuditResponseSchema>;
