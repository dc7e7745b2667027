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

/** A short name for a User-Agent ("Firefox on Linux"); the full text is in the row's title. Display only. */
export function describeUserAgent(ua: string | null): string {
  if (!ua) return "Unknown browser";
  const browser = /Edg\//.test(ua)
    ? "Edge"
    : /Firefox\//.test(ua)
      ? "Firefox"
      : /Chrome\/|Chromium\//.test(ua)
        ? "Chrome"
        : /Safari\//.test(ua)
          ? "Safari"
          : /curl|node|undici/i.test(ua)
            ? "A script"
            : "A browser";
  const os = /iPhone|iPad/.test(ua)
    ? "iOS"
    : /Android/.test(ua)
      ? "Android"
      : /Windows/.test(ua)
        ? "Windows"
        : /Mac OS X|Macintosh/.test(ua)
          ? "macOS"
          : /Linux/.test(ua)
            ? "Linux"
            : null;
  return os ? `${browser} on ${os}` : browser;
}
