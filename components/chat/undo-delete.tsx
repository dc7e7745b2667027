"use client";
// After a chat is deleted: "Chat deleted. Undo" on the chat list. Undo restores it and opens it again.
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { CloseIcon } from "@/components/icons";

export function UndoDelete({ sessionId }: { sessionId: string }) {
  const router = useRouter();
  const [state, setState] = useState<"shown" | "working" | "failed" | "dismissed">("shown");
  const button = useRef<HTMLButtonElement>(null);
  // Keyboard users land on Undo (the button they pressed is gone with the chat).
  useEffect(() => button.current?.focus(), []);
  if (state === "dismissed") return null;

  async function undo() {
    setState("working");
    const res = await fetch(`/api/sessions/${encodeURIComponent(sessionId)}/restore`, { method: "POST" });
    if (!res.ok) return setState("failed");
    router.push(`/chat/${sessionId}`);
    router.refresh();
  }

  return (
    <div
      role="status"
      data-testid="undo-delete"
      className="fixed bottom-4 left-1/2 z-10 flex -translate-x-1/2 items-center gap-3 rounded-lg bg-slate-900 px-4 py-2 text-sm text-white shadow-lg dark:bg-slate-100 dark:text-slate-900"
    >
      <span>{state === "failed" ? "Could not restore the chat." : "Chat deleted."}</span>
      <button
        ref={button}
        type="button"
        disabled={state === "working"}
        onClick={() => void undo()}
        className="rounded px-2 py-0.5 font-semibold text-sky-300 underline underline-offset-2 dark:text-sky-700"
      >
        Undo
      </button>
      <button
        type="button"
        onClick={() => setState("dismissed")}
        className="rounded px-1 opacity-80"
        aria-label="Dismiss"
      >
        <CloseIcon />
      </button>
    </div>
  );
}
