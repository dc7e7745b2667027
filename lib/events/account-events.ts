import "server-only";
// Account changes pushed to the affected person's open pages (GET /api/me/events): their nav, mode choices and
// inbox follow a role, team or mode-grant change without a reload, and a deactivated or revoked session's tabs
// are signed out. The event only says *that* something changed; each page re-reads what it shows from the server.
import { publishEvent, type AppEvent } from "./bus";

export const ACCOUNT_EVENT = "account.changed";

export type AccountChange =
  "roles" | "teams" | "mode-grants" | "deactivated" | "reactivated" | "password-reset" | "session-revoked";

/** `userId: null` means everyone (a policy change to the mode grants can reach anyone). */
export async function announceAccountChange({
  userId,
  change,
}: {
  userId: string | null;
  change: AccountChange;
}): Promise<void> {
  await publishEvent({ type: ACCOUNT_EVENT, scope: "account", sessionId: null, payload: { userId, change } });
}

/** Whether an event on the bus concerns this user's own account stream. */
export function isAccountEventFor(event: AppEvent, userId: string): boolean {
  if (event.scope !== "account" || event.type !== ACCOUNT_EVENT) return false;
  const payload = event.payload as { userId?: unknown } | null;
  return payload?.userId === null || payload?.userId === userId;
}
