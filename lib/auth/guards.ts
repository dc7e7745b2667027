import "server-only";
// Every route handler and server action calls one of these. Roles come from the database on every call,
// not from the token, so a revoked role stops working on the next request without signing out.
import { AppError } from "@/lib/errors";
import type { Role } from "@/lib/policy/types";
import { getUserWithRoles, type UserWithRoles } from "@/lib/db/users";
import { auth } from "./auth";

export type CurrentUser = UserWithRoles;

/** The signed-in user, or null. */
export async function getCurrentUser(): Promise<CurrentUser | null> {
  const session = await auth();
  const userId = session?.user?.id;
  if (!userId) return null;
  return getUserWithRoles({ userId });
}

export async function requireUser(): Promise<CurrentUser> {
  const user = await getCurrentUser();
  if (!user) throw new AppError("UNAUTHENTICATED", "sign in first");
  return user;
}

export async function requireRole(role: Exclude<Role, "member">): Promise<CurrentUser> {
  const user = await requireUser();
  if (!hasRole(user, role)) throw new AppError("FORBIDDEN", `this needs the ${role} role`);
  return user;
}

export function hasRole(user: { roles: Role[] }, role: Role): boolean {
  return user.roles.includes(role);
}
