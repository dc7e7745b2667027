"use client";
// /admin/policy: the matrix for a chosen context (saved policy, or the draft with flipped cells marked), the
// side panel with a cell's provenance, and the draft editor (settings, JSON, replay, history, import/export).
import { useMemo, useState } from "react";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import { CellPanel } from "./cell-panel";
import { ContextPicker } from "./context-picker";
import { ImportExport } from "./import-export";
import { JsonEditor } from "./json-editor";
import { ModeOverrides } from "./mode-overrides";
import { PolicyForms } from "./policy-forms";
import { PolicyMatrix, type SelectedCell } from "./policy-matrix";
import { ReplayPanel } from "./replay-panel";
import { SaveBar } from "./save-bar";
import { ScopeRules } from "./scope-rules";
import { SettingsControls } from "./settings-controls";
import { DraftProblems } from "./draft-problems";
import { Tabs } from "./tabs";
import { useDebouncedValue } from "./use-debounced-value";
import { issuesOf } from "./api";
import { useDirectory, useEffectiveMatrix, usePolicy, useSavePolicy, useTools } from "./use-policy-api";
import { usePolicyDraft } from "./use-policy-draft";
import { useUnsavedGuard } from "./use-unsaved-guard";
import { VersionHistory } from "./version-history";

type Tab = "settings" | "forms" | "json" | "replay" | "history" | "import";
const TABS: Array<{ id: Tab; title: string }> = [
  { id: "settings", title: "Settings" },
  { id: "forms", title: "Sandbox, approvals, MCP" },
  { id: "json", title: "JSON" },
  { id: "replay", title: "Preview: replay" },
  { id: "history", title: "History" },
  { id: "import", title: "Import / export" },
];

export function PolicyEditor({ nonce }: { nonce?: string }) {
  const policy = usePolicy();
  const tools = useTools();
  const directory = useDirectory();
  const draft = usePolicyDraft(policy.data, tools.data?.tools);
  const save = useSavePolicy();
  const serverIssues = useMemo(() => issuesOf(save.error), [save.error]);
  useUnsavedGuard(draft.dirty);
  const [context, setContext] = useState<MatrixContextInput>({ roles: ["member"], provider: "offline" });
  const [selected, setSelected] = useState<SelectedCell>();
  const [tab, setTab] = useState<Tab>("settings");
  const previewDocument = useDebouncedValue(draft.changedDocument);
  const effective = useEffectiveMatrix(context, previewDocument, policy.data?.version);

  // On narrow screens the panel sits below the matrix: bring it into view when a cell is chosen.
  const choose = (cell: SelectedCell) => {
    setSelected(cell);
    if (typeof window !== "undefined" && window.innerWidth < 1024) {
      requestAnimationFrame(() => document.getElementById("cell-panel")?.scrollIntoView({ behavior: "smooth", block: "start" }));
    }
  };

  const doc = draft.check?.document ?? policy.data?.document;
  const agents = useMemo(() => Object.keys(doc?.agents ?? {}), [doc]);
  const teams = useMemo(() => [...new Set([...(directory.data?.teams.map((t) => t.id) ?? []), ...Object.keys(doc?.teams ?? {})])].sort(), [directory.data, doc]);

  if (policy.error) return <p role="alert" className="text-rose-700">Could not load the policy: {policy.error.message}</p>;
  if (!policy.data || !tools.data) return <p role="status">Loading the policy…</p>;

  const matrix = effective.data?.matrix;
  const flips = effective.data?.flips ?? [];
  const selectedCell = selected && matrix?.groups.flatMap((g) => g.rows).find((r) => r.name === selected.tool)?.cells[selected.mode];
  const selectedFlip = selected && flips.find((f) => f.tool === selected.tool && f.mode === selected.mode);

  return (
    <div className="space-y-4">
      <SaveBar draft={draft} save={save} onSaved={draft.reset} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-3">
          <ContextPicker value={context} onChange={setContext} agents={agents} teams={teams} users={directory.data?.users ?? []} />
          <p className="text-sm" role="status" aria-live="polite">
            {effective.data?.draft ? (
              <>Showing the <strong>draft</strong>: {flips.length} cell{flips.length === 1 ? "" : "s"} change{flips.length === 1 ? "s" : ""} (marked “changed”).</>
            ) : (
              <>Showing the saved policy, version {policy.data.version}{policy.data.version === 0 ? " (built-in default)" : ""}.</>
            )}
            {effective.isFetching && " Updating…"}
          </p>
          {effective.error && <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">✕ {effective.error.message}</p>}
          {matrix && <PolicyMatrix matrix={matrix} flips={flips} selected={selected} onSelect={choose} />}
          {(effective.data?.warnings.length ?? 0) > 0 && (
            <details className="text-sm">
              <summary className="cursor-pointer text-amber-800 dark:text-amber-300">⚠ {effective.data?.warnings.length} warning(s) for this context</summary>
              <ul className="ml-5 list-disc">
                {effective.data?.warnings.map((w) => <li key={`${w.code}|${w.source}|${w.message}`}>{w.message}</li>)}
              </ul>
            </details>
          )}
        </div>
        <div id="cell-panel" className="scroll-mt-4 lg:sticky lg:top-4 lg:self-start">
          <CellPanel selected={selected} cell={selectedCell} flip={selectedFlip} onClose={() => setSelected(undefined)} />
        </div>
      </div>
      <Tabs label="Policy editor" tabs={TABS} active={tab} onChange={setTab}>
        {tab === "settings" &&
          (draft.check?.document ? (
            <div className="space-y-3">
              <DraftProblems draft={draft} />
              <SettingsControls document={draft.check.document} onChange={draft.setDocument} />
              <ScopeRules document={draft.check.document} teams={directory.data?.teams ?? []} users={directory.data?.users ?? []} onChange={draft.setDocument} />
              <ModeOverrides document={draft.check.document} tools={tools.data.tools} onChange={draft.setDocument} />
              <p className="text-xs text-slate-500 dark:text-slate-400">Sandbox, exec, ask and routing rules, MCP servers and subagents have their own tab; profiles, providers and agents are edited in the JSON tab; team membership, roles and mode grants in Users and roles.</p>
            </div>
          ) : (
            <div className="space-y-2">
              <p className="text-sm">The draft has problems; fix them in the JSON tab to use these controls.</p>
              <DraftProblems draft={draft} />
            </div>
          ))}
        {tab === "forms" &&
          (draft.check?.document ? (
            <PolicyForms document={draft.check.document} onChange={draft.setDocument} dirty={draft.dirty} flips={effective.data?.draft ? flips : []} updating={effective.isFetching} />
          ) : (
            <DraftProblems draft={draft} />
          ))}
        {tab === "json" && <JsonEditor draft={draft} nonce={nonce} serverIssues={serverIssues} />}
        {tab === "replay" && <ReplayPanel draft={draft} />}
        {tab === "history" && <VersionHistory currentVersion={policy.data.version} />}
        {tab === "import" && <ImportExport draft={draft} />}
      </Tabs>
    </div>
  );
}
