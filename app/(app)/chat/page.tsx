import type { Metadata } from "next";
import { requirePageUser } from "@/lib/auth/page-guards";
import { listChatSessions } from "@/lib/sessions/access";
import { SessionList } from "@/components/chat/session-list";
import { UndoDelete } from "@/components/chat/undo-delete";
import { AgentPicker } from "@/components/chat/agent-picker";
import { AgentIdSchema, SessionIdSchema } from "@/lib/http/schemas";
import { listUsableAgents } from "@/lib/runs/agents";
import { modelOptionsFor } from "@/lib/runs/model-choice";
import { ModelSelect } from "@/components/chat/model-select";
import { newChatAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Chat" };

export default async function ChatIndexPage({
  searchParams,
}: {
  searchParams: Promise<{ deleted?: string | string[]; refused?: string | string[]; model?: string | string[] }>;
}) {
  const user = await requirePageUser();
  // After a delete: the chat's id, for Undo (the restore endpoint checks it is this user's deleted chat).
  const params = await searchParams;
  const deleted = SessionIdSchema.safeParse(params.deleted);
  const refused = AgentIdSchema.safeParse(params.refused);
  const sessions = await listChatSessions({ user });
  // An unreadable policy lists no agents: the default assistant is still offered.
  const agents = await listUsableAgents({ user }).catch(() => []);
  // Every configured model; an agent that names one runs only on it (the server refuses another, and says so here).
  const models = modelOptionsFor({}).map(({ id }) => ({ id }));
  return (
    <div className="flex flex-1 max-md:flex-col">
      <SessionList sessions={sessions} newChat={newChatAction} />
      <main className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
        <h1 className="text-xl font-semibold">Chat</h1>
        <p className="max-w-md text-slate-600 dark:text-slate-400">
          Start a new chat to talk to the agent. Every tool it has is governed by policy; new chats start in chat_safe
          mode.
        </p>
        {refused.success ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            You may not start a chat as the agent “{refused.data}”, or it no longer exists. Ask an admin, or pick
            another.
          </p>
        ) : null}
        {params.model === "refused" ? (
          <p role="alert" className="text-sm text-red-700 dark:text-red-300">
            That model is not available for this agent. Pick another model, or another agent.
          </p>
        ) : null}
        {agents.length > 0 ? (
          <AgentPicker agents={agents} newChat={newChatAction} models={models} />
        ) : (
          <form action={newChatAction}>
            <ModelSelect models={models} />
            <button type="submit" className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800">
              Start a new chat
            </button>
          </form>
        )}
      </main>
      {deleted.success ? <UndoDelete key={deleted.data} sessionId={deleted.data} /> : null}
    </div>
  );
}
