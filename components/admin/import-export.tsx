"use client";
// Import a Toolgate document or an OpenClaw-style config into the draft (never saved directly: review, then
// save), and export the draft as JSON.
import { useState } from "react";
import { DEFAULT_POLICY_DOCUMENT, type PolicyDocument } from "@/lib/policy";
import { importOpenClawConfig, type ImportReport } from "@/lib/admin/openclaw-import";
import type { DraftState } from "./use-policy-draft";

export function ImportExport({ draft }: { draft: DraftState }) {
  const [text, setText] = useState("");
  const [kind, setKind] = useState<"toolgate" | "openclaw">("openclaw");
  const [error, setError] = useState<string>();
  const [report, setReport] = useState<ImportReport>();

  const doImport = () => {
    setError(undefined);
    setReport(undefined);
    let input: unknown;
    try {
      input = JSON.parse(text);
    } catch (e) {
      setError(`Not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (kind === "toolgate") {
      draft.setDocument(input);
      return;
    }
    const base: PolicyDocument = draft.check?.document ?? DEFAULT_POLICY_DOCUMENT;
    const result = importOpenClawConfig(input, base);
    draft.setDocument(result.document);
    setReport(result.report);
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
      <button type="button" onClick={doExport} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm dark:border-slate-700">
        Export the draft as JSON
      </button>
      <fieldset className="space-y-2">
        <legend className="text-sm font-semibold">Import into the draft</legend>
        <div className="flex gap-4 text-xs">
          <label className="flex items-center gap-1">
            <input type="radio" name="import-kind" checked={kind === "openclaw"} onChange={() => setKind("openclaw")} /> OpenClaw config (tools, agents, channels)
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="import-kind" checked={kind === "toolgate"} onChange={() => setKind("toolgate")} /> Toolgate policy document
          </label>
        </div>
        <label className="block text-xs">
          JSON to import
          <textarea value={text} onChange={(e) => setText(e.target.value)} className="mt-1 h-32 w-full rounded-md border border-slate-300 bg-white p-2 font-mono text-xs dark:border-slate-700 dark:bg-slate-900" placeholder='{ "tools": { "profile": "coding", "deny": ["exec"] } }' />
        </label>
        <label className="block text-xs">
          or a file
          <input
            type="file"
            accept="application/json,.json"
            className="ml-2 text-xs"
            onChange={async (e) => {
              const file = e.target.files?.[0];
              if (file) setText(await file.text());
            }}
          />
        </label>
        <button type="button" onClick={doImport} disabled={!text.trim()} className="rounded-md bg-slate-800 px-3 py-1.5 text-sm text-white disabled:opacity-50 dark:bg-slate-200 dark:text-slate-900">
          Import into the draft
        </button>
      </fieldset>
      {error && <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">✕ {error}</p>}
      {report && (
        <div role="status" className="space-y-1 text-sm">
          <p>✓ Imported into the draft; review the matrix and save. Mapped: {report.mapped.map((n) => n.path).join(", ") || "nothing"}.</p>
          {report.unmapped.length > 0 ? (
            <>
              <p className="font-semibold text-amber-800 dark:text-amber-300">⚠ Not imported ({report.unmapped.length}):</p>
              <ul className="ml-5 list-disc" data-testid="import-unmapped">
                {report.unmapped.map((n) => (
                  <li key={n.path}><code className="font-mono">{n.path}</code>: {n.message}</li>
                ))}
              </ul>
            </>
          ) : (
            <p>Everything was mapped.</p>
          )}
        </div>
      )}
    </div>
  );
}
