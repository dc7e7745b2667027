// Where this tab goes when it ends its own session. A password change ends every session, this tab's too; its event
// stream then closes and AccountLive finds the session gone, racing the form's own redirect: without this, the
// "session ended" page sometimes won over "password changed" (a browser test caught it, one run in several).
let target: string | null = null;

/** The page this tab goes to if its session ends while the action runs; null when the action failed. */
export function expectOwnSignOut(next: string | null): void {
  target = next;
}

export function ownSignOutTarget(): string | null {
  return target;
}
