// What GET /api/admin/users answers (lib/admin/users-service.ts builds it), defined once for the service and the
// admin pages (no server-only import: components import this file).
import { z } from "zod";
import { ROLES } from "@/lib/policy/types";

export const AdminUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string().nullable(),
  roles: z.array(z.enum(ROLES)),
  teamIds: z.array(z.string()),
  active: z.boolean(),
});
export type AdminUser = z.infer<typeof AdminUserSchema>;

export const AdminTeamSchema = z.object({
  id: z.string(),
  name: z.string(),
  memberIds: z.array(z.string()),
  createdAt: z.string(),
});
export type AdminTeam = z.infer<typeof AdminTeamSchema>;

export const UsersResponseSchema = z.object({ users: z.array(AdminUserSchema), teams: z.array(AdminTeamSchema) });
export type UsersResponse = z.infer<typeof UsersResponseSchema>;
