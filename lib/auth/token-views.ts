// What the tokens API answers, defined once for the route and the page (no server-only: components parse with it).
import { z } from "zod";

export const TokenViewSchema = z.object({
  id: z.string(),
  name: z.string(),
  prefix: z.string(),
  agentId: z.string().nullable(),
  mode: z.string(),
  createdAt: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  status: z.enum(["active", "expired", "revoked"]),
  user: z.object({ id: z.string(), email: z.string() }).optional(),
});

export type TokenView = z.infer<typeof TokenViewSchema>;
