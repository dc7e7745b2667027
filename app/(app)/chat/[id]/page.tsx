import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { requireUser } from "@/lib/auth/guards";
import { requirePageUser } from "@/lib/auth/page-guards";
import { getChatSession } from "@/lib/runs/sessions";
import { listChatSessions } from "@/lib/sessions/access";
import { isAppError } from "@/lib/errors";
import { SessionList } from "@/components/chat/session-list";
import { ChatView } from "@/components/chat/chat-view";
import { NOT_FOUND_TITLE } from "@/components/not-found-panel";
import { newChatAction, switchModeAction } from "../actions";

export const dynamic = "force-dynamic";

/** The chat's own title, for its owner only: an unknown, deleted or foreign id gets the 404's title (nothing leaks). */
export async function generateMetadata({ params }: { params: Promise<{ id: string }> }): Promise<Metadata> {
  const { id } = await params;
  try {
    const session = await getChatSession({ user: await requireUser(), sessionId: id });
    return { title: session.title || "Chat" };
  } catch (error) {
    if (isAppError(error)) return { title: NOT_FOUND_TITLE };
    throw error;
  }
}

export default async function ChatSessionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requirePageUser();
  let session;
  try {
    session = await getChatSession({ user, sessionId: id });
  } catch (error) {
    if (isAppError(error) && error.code === "NOT_FOUND") notFound();
    throw error;
  }
  const sessions = await listChatSessions({ user });
  return (
    <div className="flex min-h-0 flex-1 max-md:flex-col">
      <SessionList sessions={sessions} activeId={session.id} newChat={newChatAction} />
      <ChatView
        key={`${session.id}:${session.mode}`}
        sessionId={session.id}
        title={session.title}
        mode={session.mode}
        grantedModes={session.grantedModes}
        initialMessages={session.uiMessages}
        activeRun={session.activeRun}
        switchMode={switchModeAction}
        agent={session.agent}
        model={session.modelChoice ? session.model : null}
      />
    </div>
  );
}
