export const dynamic = "force-dynamic";

export default function ChatPage() {
  return (
    <main className="p-6">
      <h1 className="text-xl font-semibold">Chat</h1>
      <p className="mt-2 text-slate-600 dark:text-slate-400">Start a new chat to talk to the agent.</p>
    </main>
  );
}
