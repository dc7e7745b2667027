import Link from "next/link";

/** /chat/<id> for a chat that does not exist, was deleted or is someone else's (all alike: nothing leaks). */
export default function ChatNotFound() {
  return (
    <main className="flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center">
      <h1 className="text-xl font-semibold">Chat not found</h1>
      <p className="max-w-md text-slate-600 dark:text-slate-400">
        There is no chat at this address: it may have been deleted, or the link is wrong.
      </p>
      <Link href="/chat" className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800">
        Back to your chats
      </Link>
    </main>
  );
}
