"use client";
// Save with the base version the draft started from. A stale base is refused by the server (409): the draft is
// kept, and "Reload and reapply" fetches the version in force and replays the draft's own edits onto it, listing
// the paths the other save changed too; the result stays an unsaved draft to review. Deny lists that name nothing
// block the save unless "Save anyway" is ticked for this save (the server records the override in the audit log).
import { useState } from "react";
import type { MergeConflict, ReapplyResult } from "@/lib/admin/policy-merge";
import { api, ApiError } from "./api";
import type { PolicyResponse } from "./types";
import type { useSavePolicy } from "./use-policy-api";
import type { DraftState } from "./use-policy-draft";

const short = (value: unknown) => {
  const text = value === undefined ? "(absent)" : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

function Reapplied({ result, version }: { result: ReapplyResult; version: number }) {
  return (
    <div
      role="status"
      data-testid="reapply-result"
      className="basis-full space-y-1 rounded bg-sky-50 p-2 text-sm text-sky-900 dark:bg-sky-950 dark:text-sky-100"
    >
      <p>
        Your edits were reapplied onto version {version} ({result.applied.length} path
        {result.applied.length === 1 ? "" : "s"}:{" "}
        <code className="font-mono text-xs">{result.applied.join(", ") || "none"}</code>). Not saved yet: review and
        save.
      </p>
      {result.conflicts.length > 0 && (
        <div>
          <p className="font-semibold">⚠ Changed by both you and the other save (your value kept):</p>
          <ul className="ml-5 list-disc" data-testid="reapply-conflicts">
            {result.conflicts.map((c: MergeConflict) => (
              <li key={c.path}>
                <code className="font-mono text-xs">{c.path}</code>: theirs {short(c.theirs)} → yours {short(c.yours)}
              </li>
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

export function SaveBar({
  draft,
  save,
  onSaved,
}: {
  draft: DraftState;
  save: ReturnType<typeof useSavePolicy>;
  onSaved: () => void;
}) {
  const [comment, setComment] = useState("");
  const [confirmPluginOnly, setConfirmPluginOnly] = useState(false);
  const [saveAnyway, setSaveAnyway] = useState(false);
  const [reapplied, setReapplied] = useState<{ result: ReapplyResult; version: number }>();
  const [reloadError, setReloadError] = useState<string>();
  const pluginOnly = draft.check?.pluginOnly ?? [];
  const unknownDenies = draft.check?.unknownDenies ?? [];
  const blocked =
    !draft.dirty ||
    !!draft.jsonError ||
    (draft.check?.issues.length ?? 1) > 0 ||
    (pluginOnly.length > 0 && !confirmPluginOnly) ||
    (unknownDenies.length > 0 && !saveAnyway);
  const error = save.error instanceof ApiError ? save.error : undefined;
  const reload = async () => {
    setReloadError(undefined);
    try {
      const latest = await api<PolicyResponse>("/api/policy");
      const result = draft.reapply(latest);
      if (result) setReapplied({ result, version: latest.version });
      save.reset();
    } catch (e) {
      setReloadError(e instanceof Error ? e.message : String(e));
    }
  };
  return (
    <form
      className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      onSubmit={(e) => {
        e.preventDefault();
        if (blocked) return;
        save.mutate(
          {
            baseVersion: draft.baseVersion,
            document: draft.json,
            ...(comment.trim() ? { comment: comment.trim() } : {}),
            ...(pluginOnly.length > 0 ? { confirmPluginOnly } : {}),
            ...(unknownDenies.length > 0 ? { confirmUnknownDenies: saveAnyway } : {}),
          },
          {
            onSuccess: () => {
              setComment("");
              setConfirmPluginOnly(false);
              setSaveAnyway(false);
              setReapplied(undefined);
              onSaved();
            },
          },
        );
      }}
    >
      <span className="text-sm">
        {draft.dirty ? <strong>Unsaved draft</strong> : "No changes"} · based on version {draft.baseVersion}
      </span>
      <label className="flex items-center gap-1 text-xs">
        Comment
        <input
          className="w-56 max-w-full rounded-md border border-slate-300 bg-white px-2 py-1 dark:border-slate-700 dark:bg-slate-900"
          value={comment}
          onChange={(e) => setComment(e.target.value)}
          maxLength={500}
        />
      </label>
      {pluginOnly.length > 0 && (
        <label className="flex items-center gap-1 rounded bg-amber-50 px-2 py-1 text-xs text-amber-900 dark:bg-amber-950 dark:text-amber-200">
          <input type="checkbox" checked={confirmPluginOnly} onChange={(e) => setConfirmPluginOnly(e.target.checked)} />
          I understand {pluginOnly.join(", ")} allow{pluginOnly.length === 1 ? "s" : ""} only plugin tools and removes
          every core tool there
        </label>
      )}
      {unknownDenies.length > 0 && (
        <label className="flex items-center gap-1 rounded bg-rose-50 px-2 py-1 text-xs text-rose-900 dark:bg-rose-950 dark:text-rose-200">
          <input type="checkbox" checked={saveAnyway} onChange={(e) => setSaveAnyway(e.target.checked)} />
          Save anyway: {unknownDenies.flatMap((d) => d.entries.map((e) => `"${e}"`)).join(", ")} in{" "}
          {unknownDenies.map((d) => d.path).join(", ")} deny nothing (recorded in the audit log)
        </label>
      )}
      <button
        type="submit"
        disabled={blocked || save.isPending}
        className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white disabled:opacity-50"
      >
        {save.isPending ? "Saving…" : "Save as new version"}
      </button>
      <button
        type="button"
        disabled={!draft.dirty}
        onClick={() => {
          draft.reset();
          setReapplied(undefined);
        }}
        className="rounded-md border border-slate-300 px-3 py-1.5 text-sm disabled:opacity-50 dark:border-slate-700"
      >
        Discard draft
      </button>
      {error && (
        <div
          role="alert"
          data-testid="save-error"
          className="basis-full space-y-2 rounded bg-rose-50 p-2 text-sm text-rose-800 dark:bg-rose-950 dark:text-rose-200"
        >
          <p>
            ✕ {error.status === 409 ? "Conflict: " : ""}
            {error.message}
            {error.status === 409 && " Your draft is still here."}
          </p>
          {error.status === 409 && (
            <button
              type="button"
              onClick={reload}
              className="rounded-md bg-rose-700 px-3 py-1 text-sm font-medium text-white"
            >
              Reload and reapply my edits
            </button>
          )}
        </div>
      )}
      {reloadError && (
        <p role="alert" className="basis-full text-sm text-rose-700 dark:text-rose-300">
          ✕ Could not reload: {reloadError}
        </p>
      )}
      {reapplied && draft.dirty && <Reapplied result={reapplied.result} version={reapplied.version} />}
      {save.isSuccess && !draft.dirty && (
        <p role="status" className="basis-full text-sm text-emerald-700 dark:text-emerald-300">
          ✓ Saved as version {save.data.version}.
        </p>
      )}
    </form>
  );
}
