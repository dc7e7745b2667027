import "server-only";
// Chat sessions as the API and pages see them. A member only ever reaches their own sessions: another
// member's id answers exactly like a missing one (404), so nothing leaks. The run engine (lib/runs) builds on
// these; nothing here imports it.
import { isToolMode, resolveGrantedModes, type ToolMode } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { log } from "@/lib/log";
import { appendAudit } from "@/lib/db/audit";
import {
  findOwnedSession,
  listOwnedSessions,
  markSessionDeleted,
  restoreDeletedSession,
  updateSessionMode,
  updateSessionTitle,
} from "@/lib/db/sessions";
import { eventsCommitted } from "@/lib/events/bus";
import type { CurrentUser } from "@/lib/auth/guards";
import { loadPolicyDocument } from "@/lib/tools/policy-source";

/** The title a chat has until its first message names it (lib/runs/host.ts). */
export const DEFAULT_TITLE = "New chat";

/** Fail-closed: an unreadable stored policy grants chat_safe only, so transcripts stay readable while no switch to coding is allowed. */
export async function grantedModesFor(user: CurrentUser): Promise<ToolMode[]> {
  try {
    const { document } = await loadPolicyDocument();
    return resolveGrantedModes({ roles: user.roles, teamIds: user.teamIds, senderId: user.id }, document);
  } catch (error) {
    log("error", "policy_unavailable", {
      userId: user.id,
      error: error instanceof Error ? error.message : String(error),
    });
    return ["chat_safe"];
  }
}

export async function requireOwnedSession({ user, sessionId }: { user: CurrentUser; sessionId: string }) {
  const session = await findOwnedSession({ sessionId, ownerId: user.id });
  if (!session) throw new AppError("NOT_FOUND", "no such session");
  return session;
}

export async function listChatSessions({ user }: { user: CurrentUser }) {
  const sessions = await listOwnedSessions({ ownerId: user.id });
  return sessions.map((s) => ({ id: s.id, title: s.title, mode: s.mode, agentId: s.agentId, updatedAt: s.updatedAt }));
}

/** The only way a mode changes: a signed-in user, on their own session, to a mode an admin granted them. */
export async function changeSessionMode({
  user,
  sessionId,
  mode,
}: {
  user: CurrentUser;
  sessionId: string;
  mode: string;
}) {
  if (!isToolMode(mode))
    throw new AppError("VALIDATION_FAILED", `mode must be one of chat_safe, coding (got "${mode}")`);
  const session = await requireOwnedSession({ user, sessionId });
  const granted = await grantedModesFor(user);
  if (!granted.includes(mode)) {
    await appendAudit({
      action: "session.mode_change_refused",
      actorId: user.id,
      sessionId,
      decision: "deny",
      details: { from: session.mode, to: mode, granted },
    });
    throw new AppError("FORBIDDEN", `you have not been granted the ${mode} mode; ask an admin`);
  }
  // The marker line stays in the transcript (every tab and the read-only review show where the switch happened).
  const marker = {
    content: `Mode switched from ${session.mode} to ${mode}`,
    parts: { kind: "mode_changed", from: session.mode, to: mode },
  };
  await updateSessionMode({ sessionId, mode, marker });
  await appendAudit({
    action: "session.mode_changed",
    actorId: user.id,
    sessionId,
    decision: "allow",
    details: { from: session.mode, to: mode },
  });
  await eventsCommitted();
  return { id: sessionId, mode };
}

export async function renameChatSession({
  user,
  sessionId,
  title,
}: {
  user: CurrentUser;
  sessionId: string;
  title: string;
}) {
  const session = await requireOwnedSession({ user, sessionId });
  await updateSessionTitle({ sessionId, title });
  await appendAudit({
    action: "session.renamed",
    actorId: user.id,
    sessionId,
    details: { from: session.title, to: title },
  });
  await eventsCommitted();
  return { id: sessionId, title };
}

/**
 * Soft delete: the chat leaves every list and answers 404, its rows stay (Undo restores it). A chat with a turn
 * running or waiting for an approval is refused: the turn would go on in a chat nobody can see.
 */
export async function deleteChatSession({ user, sessionId }: { user: CurrentUser; sessionId: string }) {
  await requireOwnedSession({ user, sessionId });
  if (!(await markSessionDeleted({ sessionId, ownerId: user.id }))) {
    throw new AppError(
      "CONFLICT",
      "a turn is running or waiting for an approval in this chat; stop it before deleting the chat",
    );
  }
  await appendAudit({ action: "session.deleted", actorId: user.id, sessionId });
  await eventsCommitted();
  return { id: sessionId, deleted: true };
}

export async function restoreChatSession({ user, sessionId }: { user: CurrentUser; sessionId: string }) {
  if (!(await restoreDeletedSession({ sessionId, ownerId: user.id })))
    throw new AppError("NOT_FOUND", "no such deleted session");
  await appendAudit({ action: "session.restored", actorId: user.id, sessionId });
  return { id: sessionId, deleted: false };
}
