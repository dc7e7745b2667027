import "server-only";
// Creating and reading chat sessions: these need the run engine's agents, model choice and transcript. Ownership,
// modes, renaming and deleting live in lib/sessions/access.ts.
import type { ToolMode } from "@/lib/policy";
import { AppError, isAppError } from "@/lib/errors";
import { loadConfig } from "@/lib/config";
import { appendAudit } from "@/lib/db/audit";
import { listMessages } from "@/lib/db/messages";
import { findActiveRun } from "@/lib/db/runs";
import { createSession, findSessionById, findUntouchedSession } from "@/lib/db/sessions";
import { listSessionToolCalls } from "@/lib/db/tool-calls";
import { findUserEmails } from "@/lib/db/users";
import { listApprovalReasons } from "@/lib/db/approvals";
import type { CurrentUser } from "@/lib/auth/guards";
import { DEFAULT_TITLE, grantedModesFor, requireOwnedSession } from "@/lib/sessions/access";
import { getSessionMode } from "./session-mode";
import { toUIMessages } from "./transcript";
import { describeSessionAgent, requireUsableAgent } from "./agents";
import { chooseSessionModel, configuredModelCount, defaultModelId } from "./model-choice";

/** The agent and the model are chosen here and only here: no later request can change a session's agent or model. */
export async function createChatSession({
  user,
  title,
  agentId,
  model,
}: {
  user: CurrentUser;
  title?: string;
  agentId?: string;
  model?: string;
}) {
  const mode = loadConfig().SESSION_DEFAULT_MODE as ToolMode;
  const chosenModel = await chooseFor({ user, agentId, model });
  const session = await createSession({ ownerId: user.id, mode, title, agentId: agentId ?? null, model: chosenModel });
  await appendAudit({
    action: "session.created",
    actorId: user.id,
    sessionId: session.id,
    details: { mode, agentId: session.agentId, model: session.model },
  });
  return {
    id: session.id,
    mode,
    title: session.title,
    agentId: session.agentId,
    model: session.model ?? defaultModelId(),
    createdAt: session.createdAt,
  };
}

/** The agent (usableBy) and the model (configured, the agent's) a new session asks for; refusals are audited. */
async function chooseFor({
  user,
  agentId,
  model,
}: {
  user: CurrentUser;
  agentId?: string;
  model?: string;
}): Promise<string | null> {
  try {
    const agent = agentId !== undefined ? await requireUsableAgent({ user, agentId }) : null;
    return chooseSessionModel({ requested: model, agentId, agentModel: agent?.model });
  } catch (error) {
    const action =
      isAppError(error) && error.details && typeof error.details === "object" && "model" in error.details
        ? "session.model_refused"
        : "session.agent_refused";
    await appendAudit({
      action,
      actorId: user.id,
      decision: "deny",
      details: {
        agentId: agentId ?? null,
        model: model ?? null,
        error: error instanceof Error ? error.message : String(error),
      },
    });
    throw error;
  }
}

/**
 * "New chat" in the UI: an untouched chat the user already has (no message yet, the default mode, the same agent and
 * model) is opened again instead of leaving one more empty chat behind each click. The API's POST /api/sessions always creates.
 */
export async function openNewChatSession({
  user,
  agentId,
  model,
}: {
  user: CurrentUser;
  agentId?: string;
  model?: string;
}) {
  const mode = loadConfig().SESSION_DEFAULT_MODE as ToolMode;
  const chosenModel = await chooseFor({ user, agentId, model });
  const untouched = await findUntouchedSession({
    ownerId: user.id,
    mode,
    title: DEFAULT_TITLE,
    agentId: agentId ?? null,
    model: chosenModel,
  });
  return untouched
    ? {
        id: untouched.id,
        mode,
        title: untouched.title,
        agentId: untouched.agentId,
        model: untouched.model ?? defaultModelId(),
        createdAt: untouched.createdAt,
      }
    : createChatSession({ user, agentId, model });
}

async function uiTranscript(sessionId: string, viewerId: string) {
  const rows = await listMessages({ sessionId });
  const calls = await listSessionToolCalls({ sessionId });
  const emails = await findUserEmails({ userIds: calls.map((c) => c.decidedBy ?? "").filter(Boolean) });
  const reasons = await listApprovalReasons({ ids: calls.map((c) => c.approvalId ?? "").filter(Boolean) });
  // "Stopped by you" and "approved by owner@…": the reader sees who decided, never an id to guess with.
  const states = new Map(
    calls.map((c) => [
      c.callId,
      {
        status: c.status,
        decidedBy: c.decidedBy ? (c.decidedBy === viewerId ? "you" : (emails.get(c.decidedBy) ?? "an owner")) : null,
        decidedAt: c.decidedAt,
        decisionReason: c.approvalId ? (reasons.get(c.approvalId) ?? null) : null,
      },
    ]),
  );
  return { rows, uiMessages: toUIMessages(rows, states) };
}

/**
 * An owner or admin reads someone's session to judge a request in it: read-only, and every reading is audited
 * (who read which session). Members get 404 as for any session not theirs.
 */
export async function reviewSession({ user, sessionId }: { user: CurrentUser; sessionId: string }) {
  if (!user.roles.includes("owner") && !user.roles.includes("admin"))
    throw new AppError("NOT_FOUND", "no such session");
  const session = await findSessionById({ sessionId });
  if (!session) throw new AppError("NOT_FOUND", "no such session");
  await appendAudit({ action: "session.reviewed", actorId: user.id, sessionId, details: { ownerId: session.ownerId } });
  const owner = (await findUserEmails({ userIds: [session.ownerId] })).get(session.ownerId) ?? null;
  const { uiMessages } = await uiTranscript(sessionId, user.id);
  return { id: session.id, title: session.title, mode: session.mode, ownerEmail: owner, uiMessages };
}

export async function getChatSession({ user, sessionId }: { user: CurrentUser; sessionId: string }) {
  const session = await requireOwnedSession({ user, sessionId });
  const grantedModes = await grantedModesFor(user);
  const { mode } = await getSessionMode({ sessionId, grantedModes });
  const { rows, uiMessages } = await uiTranscript(sessionId, user.id);
  const active = await findActiveRun({ sessionId });
  return {
    id: session.id,
    title: session.title,
    mode,
    storedMode: session.mode,
    grantedModes,
    agentId: session.agentId,
    agent: await describeSessionAgent(session.agentId),
    /** The model this chat runs on, and whether there is a choice at all (the header names it only then). */
    model: session.model ?? defaultModelId(),
    modelChoice: configuredModelCount() > 1,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    transcript: rows.map((m) => ({
      id: m.id,
      seq: m.seq,
      role: m.role,
      content: m.content,
      toolCallId: m.toolCallId,
      toolName: m.toolName,
      parts: m.parts,
      createdAt: m.createdAt,
    })),
    uiMessages,
    /** The session's active run, if any: the composer refuses new messages while one runs or waits. */
    activeRun:
      active && ["running", "waiting_approval"].includes(active.status)
        ? { id: active.id, status: active.status }
        : null,
  };
}
