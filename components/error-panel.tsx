"use client";
import { useEffect } from "react";

/**
 * What a page shows when rendering it failed. Only Next's digest is shown (a short reference to find the server
 * log line): in production the message is a generic one anyway, and a stack or path must never reach the page.
 */
export function ErrorPanel({
  error,
  reset,
  fullHeight,
}: {
  error: Error & { digest?: string };
  reset: () => void;
  fullHeight?: boolean;
}) {
  useEffect(() => {
    document.title = "Something went wrong — Toolgate";
  }, []);
  const ref = error.digest ? error.digest.slice(0, 12) : null;
  return (
    <main
      role="alert"
      className={`flex flex-1 flex-col items-center justify-center gap-3 p-6 text-center ${fullHeight ? "min-h-screen" : ""}`}
    >
      <h1 className="text-xl font-semibold">Something went wrong</h1>
      <p className="max-w-md text-slate-600 dark:text-slate-400">
        This page could not be shown. Try again; if it keeps failing, tell an admin{ref ? " the reference below" : ""}.
      </p>
      {ref ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Reference: <code data-testid="error-ref">{ref}</code>
        </p>
      ) : null}
      <button
        type="button"
        onClick={reset}
        className="rounded-md bg-sky-700 px-4 py-2 font-medium text-white hover:bg-sky-800"
      >
        Try again
      </button>
    </main>
  );
}
