"use client";
// Import a Toolgate document or an OpenClaw config (openclaw.json, JSON5) into the draft, and export the draft.
// An OpenClaw import goes through POST /api/policy/import (merged into the current draft, with a report) and is
// previewed first: the cells of the matrix it would change, draft → import, in the matrix's context and with each
// agent and team the import names (lib/admin/matrix-contexts.ts), and everything it could not map. Only "Apply to
// the draft" changes the draft; saving is the usual review-and-save.
import { useState } from "react";
import type { ImportReport } from "@/lib/admin/openclaw-import";
import { previewPlan, type LabeledContext, type LeftOut } from "@/lib/admin/matrix-contexts";
import { parsePolicyDocument, type PolicyDocument } from "@/lib/policy";
import { api } from "./api";
import { ContextFlipList, LeftOutNote } from "./context-flips";
import { useContextFlips } from "./use-context-flips";
import type { DraftState } from "./use-policy-draft";

type Preview = {
  document: unknown;
  report: ImportReport;
  before?: PolicyDocument;
  contexts: LabeledContext[];
  leftOut?: LeftOut;
};

export function ImportExport({
  draft,
  baseContext,
  saved,
}: {
  draft: DraftState;
  baseContext: LabeledContext;
  saved: PolicyDocument;
}) {
  const [text, setText] = useState("");
  const [kind, setKind] = useState<"toolgate" | "openclaw">("openclaw");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<Preview>();

  const doImport = async () => {
    setError(undefined);
    setPreview(undefined);
    if (kind === "toolgate") {
      try {
        draft.setDocument(JSON.parse(text));
      } catch (e) {
        setError(`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
      return;
    }
    setBusy(true);
    try {
      const base = draft.check?.document;
      const result = await api<{ document: unknown; report: ImportReport }>("/api/policy/import", {
        body: { format: "openclaw", text, ...(base ? { base } : {}) },
      });
      const after = parsePolicyDocument(result.document);
      const plan = after.ok
        ? previewPlan({ before: base ?? saved, after: after.document, base: baseContext, limit: 8 })
        : { contexts: [baseContext] };
      setPreview({ ...result, ...(base ? { before: base } : {}), ...plan });
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  const doExport = () => {
    const blob = new Blob([draft.text], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = "toolgate-policy.json";
    a.click();
    URL.revokeObjectURL(url);
  };

  return (
    <div className="space-y-3">
      <button
        type="button"
        onClick={doExport}
        className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
      >
        Export the draft as JSON
      </button>
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Import into the draft</legend>
        <div className="flex gap-4 text-xs">
          <label className="flex items-center gap-1">
            <input type="radio" name="import-kind" checked={kind === "openclaw"} onChange={() => setKind("openclaw")} />{" "}
            OpenClaw config (openclaw.json, JSON5)
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="import-kind" checked={kind === "toolgate"} onChange={() => setKind("toolgate")} />{" "}
            Toolgate policy document
          </label>
        </div>
        <label className="block text-xs">
          Text to import
          <textarea
            value={text}
            onChange={(e) => setText(e.target.value)}
            className="mt-1 h-32 w-full rounded-md border border-slate-300 bg-white p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
            placeholder="{ tools: { profile: 'coding', deny: ['exec'] }, // comments are fine }"
          />
        </label>
        <label className="block text-xs">
          or a file
          <input
            type="file"
            accept="application/json,.json,.json5"
            className="ml-2 text-xs"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              if (file) setText(await file.text());
            }}
          />
        </label>
        <button
          type="button"
          onClick={doImport}
          disabled={!text.trim() || busy}
          className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-50 dark:bg-slate-200 dark:text-slate-900"
        >
          {kind === "openclaw" ? (busy ? "Mapping…" : "Preview the import") : "Import into the draft"}
        </button>
      </fieldset>
      {error && (
        <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
          ✕ {error}
        </p>
      )}
      {preview && (
        <ImportPreview
          preview={preview}
          onApply={() => {
            draft.setDocument(preview.document);
            setPreview(undefined);
          }}
          onDiscard={() => setPreview(undefined)}
        />
      )}
    </div>
  );
}

function NoteList({ title, notes, testId }: { title: string; notes: ImportReport["mapped"]; testId: string }) {
  if (notes.length === 0) return null;
  return (
    <details open={testId !== "import-mapped"}>
      <summary className="cursor-pointer font-semibold">
        {title} ({notes.length})
      </summary>
      <ul className="ml-5 list-disc" data-testid={testId}>
        {notes.map((n, i) => (
          <li key={`${n.path}-${i}`}>
            <code className="font-mono">{n.path}</code>: {n.message}
          </li>
        ))}
      </ul>
    </details>
  );
}

function ImportPreview({
  preview,
  onApply,
  onDiscard,
}: {
  preview: Preview;
  onApply: () => void;
  onDiscard: () => void;
}) {
  const { report } = preview;
  const flips = useContextFlips(preview.contexts, preview.document, preview.before);
  return (
    <div
      role="status"
      className="space-y-2 rounded-md border border-slate-300 p-3 text-sm dark:border-slate-700"
      data-testid="import-preview"
    >
      <p className="font-semibold">Preview: merged into the current draft (nothing is saved yet)</p>
      <p className="text-xs text-slate-600 dark:text-slate-400">
        Cells that change from the draft to the draft with this import, for the matrix&apos;s context and with each
        agent and team the import names:
      </p>
      <ContextFlipList rows={flips.rows} testId="import-flips" />
      <LeftOutNote leftOut={preview.leftOut} testId="import-left-out" />
      <NoteList title="⚠ Not imported" notes={report.unmapped} testId="import-unmapped" />
      <NoteList title="Replaced values already in the draft" notes={report.replaced} testId="import-replaced" />
      <NoteList title="Tool names mapped or unknown" notes={report.names} testId="import-names" />
      <NoteList title="Imported" notes={report.mapped} testId="import-mapped" />
      <div className="flex gap-2">
        <button
          type="button"
          onClick={onApply}
          className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white dark:bg-slate-200 dark:text-slate-900"
        >
          Apply to the draft
        </button>
        <button
          type="button"
          onClick={onDiscard}
          className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700"
        >
          Discard
        </button>
      </div>
    </div>
  );
}
