import "server-only";
// Who may open which event stream, in one place: the Next.js route handlers and the lean node:http handler
// (lib/http/lean-streams.ts) both call this with the session claim they read, so both apply the same checks in the
// same order (session, role, then the session id and its owner) and re-check the same claim while the stream is open.
import { sessionFromClaim, stillAuthorized, type CurrentUser, type SessionClaim } from "@/lib/auth/guards";
import { isAccountEventFor } from "@/lib/events/account-events";
import type { AppEvent } from "@/lib/events/bus";
import type { StreamCheck } from "@/lib/events/fan-out";
import { requireOwnedSession } from "@/lib/sessions/access";
import { parseWith } from "./respond";
import { SessionIdSchema } from "./schemas";

export type StreamTarget =
  { kind: "approvals" } | { kind: "session"; sessionId: string } | { kind: "tab"; sessionId?: string };

/** `userId`: whose cap the stream counts against (lib/events/stream-cap.ts). */
export type AuthorizedStream = { visible: (event: AppEvent) => boolean; check: StreamCheck; userId: string };

export async function authorizeEventStream(
  claim: SessionClaim | null,
  target: StreamTarget,
): Promise<AuthorizedStream> {
  if (target.kind === "approvals") {
    // The owners' inbox; closes when the owner role is removed or the session is revoked.
    const session = await sessionFromClaim(claim, "owner");
    return {
      visible: (event) => event.scope === "approvals",
      check: stillAuthorized(session.claim, "owner"),
      userId: session.user.id,
    };
  }
  const { user, claim: held } = await sessionFromClaim(claim);
  if (target.kind === "tab") return tabStream(user, held, target.sessionId);
  const sessionId = parseWith(SessionIdSchema, target.sessionId);
  await requireOwnedSession({ user, sessionId });
  return { visible: (event) => event.sessionId === sessionId, check: stillAuthorized(held), userId: user.id };
}

/**
 * Everything one browser tab shows live, on one connection (GET /api/me/events[?session=<id>]): the person's own
 * account changes, the owners' inbox for an owner, and the open chat's events. One per tab because browsers allow
 * six HTTP/1.1 connections per site across all tabs: three streams a page (account, inbox badge, chat) made the
 * second tab of an owner hold all six, and its next request waited for ever. An owner's stream closes when the
 * owner role goes (the tab reconnects without the inbox).
 */
async function tabStream(
  user: CurrentUser,
  held: SessionClaim,
  rawSessionId: string | undefined,
): Promise<AuthorizedStream> {
  const sessionId = rawSessionId === undefined ? null : parseWith(SessionIdSchema, rawSessionId);
  if (sessionId) await requireOwnedSession({ user, sessionId });
  const owner = user.roles.includes("owner");
  return {
    visible: (event) =>
      isAccountEventFor(event, user.id) ||
      (owner && event.scope === "approvals") ||
      (sessionId !== null && event.sessionId === sessionId),
    check: owner ? stillAuthorized(held, "owner") : stillAuthorized(held),
    userId: user.id,
  };
}
