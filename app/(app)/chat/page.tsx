import { requireUser } from "@/lib/auth/guards";
import { listChatSessions } from "@/lib/runs/sessions";
import { SessionList } from "@/components/chat/session-list";
import { UndoDelete } from "@/components/chat/undo-delete";
import { SessionIdSchema } from "@/lib/http/schemas";
import { newChatAction } from "./actions";

export const dynamic = "force-dynamic";

export default async function ChatIndexPage({ searchParams }: { searchParams: Promise<{ deleted?: string | string[] }> }) {
  const user = await requireUser();
  // After a delete: the chat's id, for Undo (the restore endpoint checks it is this user's deleted chat).
  const deleted = SessionIdSchema.safeParse((await searchParams).deleted);
  const sessions = await listChatSessions({ user });
  return (
    <div className="flex flex-1 max-md:flex-col">
      <SessionList sessions={sessions} newChat={newChatAction} />
      <main className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
        <h1 className="text-xl font-semibold">Chat</h1>
        <p className="max-w-md text-slate-600 dark:text-slate-400">
          Start a new chat to talk to the agent. Every tool it has is governed by policy; new chats start in chat_safe mode.
        </p>
        <form action={newChatAction}>
          <button type="submit" className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800">
            Start a new chat
          </button>
        </form>
      </main>
      {deleted.success ? <UndoDelete key={deleted.data} sessionId={deleted.data} /> : null}
    </div>
  );
}
