"use client";
// Save with the base version the draft started from. A stale base is refused by the server (409); the message
// is shown and the draft is kept, so nothing typed is lost.
import { useState } from "react";
import { ApiError } from "./api";
import { useSavePolicy } from "./use-policy-api";
import type { DraftState } from "./use-policy-draft";

export function SaveBar({ draft, baseVersion, onSaved }: { draft: DraftState; baseVersion: number; onSaved: () => void }) {
  const save = useSavePolicy();
  const [comment, setComment] = useState("");
  const [confirmPluginOnly, setConfirmPluginOnly] = useState(false);
  const pluginOnly = draft.check?.pluginOnly ?? [];
  const blocked = !draft.dirty || !!draft.jsonError || (draft.check?.issues.length ?? 1) > 0 || (pluginOnly.length > 0 && !confirmPluginOnly);
  const error = save.error instanceof ApiError ? save.error : undefined;
  return (
    <form
      className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      onSubmit={(e) => {
        e.preventDefault();
        if (blocked) return;
        save.mutate(
          { baseVersion, document: draft.json, ...(comment.trim() ? { comment: comment.trim() } : {}), ...(pluginOnly.length > 0 ? { confirmPluginOnly } : {}) },
          {
            onSuccess: () => {
              setComment("");
              setConfirmPluginOnly(false);
              onSaved();
            },
          },
        );
      }}
    >
      <span className="text-sm">
        {draft.dirty ? <strong>Unsaved draft</strong> : "No changes"} · based on version {baseVersion}
      </span>
      <label className="flex items-center gap-1 text-xs">
        Comment
        <input className="w-56 rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900" value={comment} onChange={(e) => setComment(e.target.value)} maxLength={500} />
      </label>
      {pluginOnly.length > 0 && (
        <label className="flex items-center gap-1 rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
          <input type="checkbox" checked={confirmPluginOnly} onChange={(e) => setConfirmPluginOnly(e.target.checked)} />
          I understand {pluginOnly.join(", ")} allow{pluginOnly.length === 1 ? "s" : ""} only plugin tools and removes every core tool there
        </label>
      )}
      <button type="submit" disabled={blocked || save.isPending} className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50">
        {save.isPending ? "Saving…" : "Save as new version"}
      </button>
      <button type="button" disabled={!draft.dirty} onClick={draft.reset} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm disabled:opacity-50 dark:border-slate-700">
        Discard draft
      </button>
      {error && (
        <p role="alert" data-testid="save-error" className="basis-full rounded bg-rose-50 p-2 text-sm text-rose-800 dark:bg-rose-950 dark:text-rose-200">
          ✕ {error.status === 409 ? "Conflict: " : ""}
          {error.message}
          {error.status === 409 && " Your draft is still here."}
        </p>
      )}
      {save.isSuccess && !draft.dirty && <p role="status" className="basis-full text-sm text-emerald-700 dark:text-emerald-300">✓ Saved as version {save.data.version}.</p>}
    </form>
  );
}
