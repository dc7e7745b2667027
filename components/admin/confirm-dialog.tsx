"use client";
// A modal question before a change that is hard to take back (granting admin or owner, deactivating someone).
// The native <dialog> traps focus, closes on Escape and is announced as a dialog; Cancel has the focus first,
// so Enter alone never confirms.
import { useEffect, useRef, type ReactNode } from "react";

export type Confirmation = {
  title: string;
  body: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  onConfirm: () => void;
};

export function ConfirmDialog({ question, onClose }: { question: Confirmation | null; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (question && !el.open) {
      el.showModal();
      cancel.current?.focus();
    }
    if (!question && el.open) el.close();
  }, [question]);
  return (
    <dialog
      ref={dialog}
      aria-labelledby="confirm-title"
      data-testid="confirm-dialog"
      onClose={onClose}
      className="m-auto w-[min(32rem,calc(100vw-2rem))] rounded-lg border border-slate-300 bg-white p-4 text-slate-900 shadow-xl backdrop:bg-slate-900/50 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100"
    >
      {question ? (
        <div className="space-y-3">
          <h2 id="confirm-title" className="text-lg font-semibold">
            {question.title}
          </h2>
          <div className="text-sm">{question.body}</div>
          <div className="flex justify-end gap-2">
            <button
              ref={cancel}
              type="button"
              onClick={onClose}
              className="rounded-md border border-slate-400 px-3 py-1.5 text-sm dark:border-slate-600"
            >
              Cancel
            </button>
            <button
              type="button"
              onClick={() => {
                question.onConfirm();
                onClose();
              }}
              className={`rounded-md px-3 py-1.5 text-sm font-medium text-white ${question.danger ? "bg-red-700" : "bg-sky-700"}`}
            >
              {question.confirmLabel}
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
