// What the signed-in devices API answers (GET /api/me/sessions), defined once for the route and the page
// (no server-only: components parse with it).
import { z } from "zod";

export const DeviceViewSchema = z.object({
  id: z.string(),
  createdAt: z.string(),
  lastSeenAt: z.string(),
  userAgent: z.string().nullable(),
  ip: z.string().nullable(),
  /** The session of the browser that asked. */
  current: z.boolean(),
});

export type DeviceView = z.infer<typeof DeviceViewSchema>;

export const DevicesResponseSchema = z.object({ sessions: z.array(DeviceViewSchema) });
