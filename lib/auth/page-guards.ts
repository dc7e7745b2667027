import "server-only";
import { redirect } from "next/navigation";
import type { Role } from "@/lib/policy/types";
import { currentUserOrEnded, hasRole, type CurrentUser } from "./guards";

/**
 * For pages: the signed-in user, or the redirect the app layout would make. A page renders beside its layout, not
 * after it, so a session that ends between the two (deactivation, sign-out elsewhere) reaches the page too; throwing
 * there put an error page and console errors in front of the "you were signed out" screen the layout sends the tab to.
 */
export async function requirePageUser(role?: Exclude<Role, "member">): Promise<CurrentUser> {
  const { user, ended, passwordMustChange } = await currentUserOrEnded();
  if (passwordMustChange) redirect("/change-password");
  if (!user) redirect(ended ? "/login?ended=1" : "/login");
  // Said, not silent, as the admin layout does (components/redirect-notice.tsx).
  if (role && !hasRole(user, role)) redirect(`/chat?notice=${role}-only`);
  return user;
}
