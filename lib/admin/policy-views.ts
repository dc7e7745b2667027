// One entry of GET /api/policy/versions (lib/admin/policy-service.ts builds it), defined once for the service and
// the policy page (no server-only import: components import this file).
import { z } from "zod";

export const VersionEntrySchema = z.object({
  version: z.number(),
  createdAt: z.string(),
  createdBy: z.object({ id: z.string(), email: z.string().nullable() }).nullable(),
  comment: z.string().nullable(),
  changed: z.array(z.string()).nullable(),
  changedPaths: z.array(z.string()).nullable(),
});
export type VersionEntry = z.infer<typeof VersionEntrySchema>;
