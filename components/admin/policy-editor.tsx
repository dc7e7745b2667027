"use client";
// /admin/policy: the matrix for a chosen context (saved policy, or the draft with flipped cells marked), the
// side panel with a cell's provenance, and the draft editor (settings, JSON, replay, history, import/export).
import { useMemo, useState } from "react";
import { contextLabel, defaultMatrixContext, describeMatrixContext } from "@/lib/admin/matrix-contexts";
import type { MatrixContextInput } from "@/lib/admin/schemas";
import { DraftContextFlips } from "./draft-context-flips";
import { PolicyForms } from "./policy-forms";
import { SandboxForms } from "./sandbox-forms";
import { CellPanel } from "./cell-panel";
import { ContextPicker } from "./context-picker";
import { ImportExport } from "./import-export";
import { JsonEditor } from "./json-editor";
import { ModeOverrides } from "./mode-overrides";
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

type Tab = "settings" | "forms" | "sandbox" | "json" | "replay" | "history" | "import";
const TABS: Array<{ id: Tab; title: string }> = [
  { id: "settings", title: "Settings" },
  { id: "forms", title: "Agents, profiles, providers" },
  { id: "sandbox", title: "Sandbox, approvals, MCP" },
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
  const [picked, setContext] = useState<MatrixContextInput>();
  const users = useMemo(() => directory.data?.users ?? [], [directory.data]);
  // Until one is picked: the person with the most granted modes in the saved policy (lib/admin/matrix-contexts.ts).
  const context = useMemo(
    () =>
      picked ??
      (policy.data && (directory.data || directory.error)
        ? defaultMatrixContext(policy.data.document, users)
        : undefined),
    [picked, policy.data, directory.data, directory.error, users],
  );
  const [selected, setSelected] = useState<SelectedCell>();
  const [tab, setTab] = useState<Tab>("settings");
  const previewDocument = useDebouncedValue(draft.changedDocument);
  const effective = useEffectiveMatrix(context, previewDocument, policy.data?.version);
  const baseContext = useMemo(() => context && { label: contextLabel(context, users), context }, [context, users]);

  // On narrow screens the panel sits below the matrix: bring it into view when a cell is chosen.
  const choose = (cell: SelectedCell) => {
    setSelected(cell);
    if (typeof window !== "undefined" && window.innerWidth < 1024) {
      requestAnimationFrame(() =>
        document.getElementById("cell-panel")?.scrollIntoView({ behavior: "smooth", block: "start" }),
      );
    }
  };

  const doc = draft.check?.document ?? policy.data?.document;
  const agents = useMemo(() => Object.keys(doc?.agents ?? {}), [doc]);
  const teams = useMemo(
    () => [...new Set([...(directory.data?.teams.map((t) => t.id) ?? []), ...Object.keys(doc?.teams ?? {})])].sort(),
    [directory.data, doc],
  );

  if (policy.error)
    return (
      <p role="alert" className="text-rose-700">
        Could not load the policy: {policy.error.message}
      </p>
    );
  if (!policy.data || !tools.data || !context || !baseContext) return <p role="status">Loading the policy…</p>;

  const matrix = effective.data?.matrix;
  const flips = effective.data?.flips ?? [];
  const selectedCell =
    selected && matrix?.groups.flatMap((g) => g.rows).find((r) => r.name === selected.tool)?.cells[selected.mode];
  const selectedFlip = selected && flips.find((f) => f.tool === selected.tool && f.mode === selected.mode);

  return (
    <div className="space-y-4">
      <SaveBar draft={draft} save={save} onSaved={draft.reset} />
      <div className="grid gap-4 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0 space-y-3">
          <ContextPicker value={context} onChange={setContext} agents={agents} teams={teams} users={users} />
          <p className="text-sm" data-testid="matrix-context">
            {describeMatrixContext(context, doc ?? policy.data.document, users)}
          </p>
          <p className="text-sm" role="status" aria-live="polite">
            {effective.data?.draft ? (
              <>
                Showing the <strong>draft</strong>: {flips.length} cell{flips.length === 1 ? "" : "s"} change
                {flips.length === 1 ? "s" : ""} (marked “changed”).
              </>
            ) : (
              <>
                Showing the saved policy, version {policy.data.version}
                {policy.data.version === 0 ? " (built-in default)" : ""}.
              </>
            )}
            {effective.isFetching && " Updating…"}
          </p>
          <DraftContextFlips
            saved={policy.data.document}
            draft={previewDocument}
            base={baseContext}
            onPick={setContext}
          />
          {effective.error && (
            <p role="alert" className="text-sm text-rose-700 dark:text-rose-300">
              ✕ {effective.error.message}
            </p>
          )}
          {matrix && <PolicyMatrix matrix={matrix} flips={flips} selected={selected} onSelect={choose} />}
          {(effective.data?.warnings.length ?? 0) > 0 && (
            <details className="text-sm">
              <summary className="cursor-pointer text-amber-800 dark:text-amber-300">
                ⚠ {effective.data?.warnings.length} warning(s) for this context
              </summary>
              <ul className="ml-5 list-disc">
                {effective.data?.warnings.map((w) => (
                  <li key={`${w.code}|${w.source}|${w.message}`}>{w.message}</li>
                ))}
              </ul>
            </details>
          )}
        </div>
        <div id="cell-panel" className="scroll-mt-4 lg:sticky lg:top-4 lg:self-start">
          <CellPanel
            selected={selected}
            cell={selectedCell}
            flip={selectedFlip}
            onClose={() => setSelected(undefined)}
          />
        </div>
      </div>
      <Tabs label="Policy editor" tabs={TABS} active={tab} onChange={setTab}>
        {tab === "settings" &&
          (draft.check?.document ? (
            <div className="space-y-3">
              <DraftProblems draft={draft} />
              <SettingsControls document={draft.check.document} onChange={draft.setDocument} />
              <ScopeRules
                document={draft.check.document}
                teams={directory.data?.teams ?? []}
                users={directory.data?.users ?? []}
                onChange={draft.setDocument}
              />
              <ModeOverrides document={draft.check.document} tools={tools.data.tools} onChange={draft.setDocument} />
              <p className="text-xs text-slate-500 dark:text-slate-400">
                Agents, profiles and providers have their own tab, and so do sandbox, exec, ask and routing rules, MCP
                servers and subagents; team membership, roles and mode grants are in Users and roles.
              </p>
            </div>
          ) : (
            <div className="space-y-2">
              <p className="text-sm">The draft has problems; fix them in the JSON tab to use these controls.</p>
              <DraftProblems draft={draft} />
            </div>
          ))}
        {tab === "forms" &&
          (draft.check?.document ? (
            <PolicyForms
              document={draft.check.document}
              tools={tools.data.tools}
              teams={directory.data?.teams ?? []}
              users={users}
              onChange={draft.setDocument}
              onShowAgent={(agentId) => {
                setContext({ ...context, agentId });
                window.scrollTo({ top: 0, behavior: "smooth" });
              }}
              effect={
                <DraftContextFlips
                  saved={policy.data.document}
                  draft={previewDocument}
                  base={baseContext}
                  includeBase
                />
              }
            />
          ) : (
            <div className="space-y-2">
              <p className="text-sm">The draft has problems; fix them in the JSON tab to use these forms.</p>
              <DraftProblems draft={draft} />
            </div>
          ))}
        {tab === "sandbox" &&
          (draft.check?.document ? (
            <SandboxForms
              document={draft.check.document}
              onChange={draft.setDocument}
              dirty={draft.dirty}
              flips={effective.data?.draft ? flips : []}
              updating={effective.isFetching}
            />
          ) : (
            <DraftProblems draft={draft} />
          ))}
        {tab === "json" && <JsonEditor draft={draft} nonce={nonce} serverIssues={serverIssues} />}
        {tab === "replay" && <ReplayPanel draft={draft} />}
        {tab === "history" && <VersionHistory currentVersion={policy.data.version} />}
        {tab === "import" && <ImportExport draft={draft} baseContext={baseContext} saved={policy.data.document} />}
      </Tabs>
    </div>
  );
}
