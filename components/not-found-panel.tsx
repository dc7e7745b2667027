import Link from "next/link";

/** The 404 title, also for a chat page whose id is unknown or someone else's (the same answer: nothing leaks). */
export const NOT_FOUND_TITLE = "Page not found";

/** The 404 body: outside the signed-in shell, so it stands on its own (full height, its own landmark). */
export function NotFoundPanel() {
  return (
    <main className="flex min-h-screen flex-col items-center justify-center gap-3 p-6 text-center">
      <p className="text-sm font-semibold tracking-wide text-sky-700 dark:text-sky-400">404</p>
      <h1 className="text-xl font-semibold">Page not found</h1>
      <p className="max-w-md text-slate-600 dark:text-slate-400">
        There is nothing at this address. The link may be wrong, or the page was moved.
      </p>
      <Link href="/chat" className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800">
        Back to the chat
      </Link>
    </main>
  );
}
