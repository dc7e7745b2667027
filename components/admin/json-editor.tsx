"use client";
// The whole document as JSON in CodeMirror: line numbers, JSON highlighting, and every problem as a marker on its
// line (JSON syntax at its position; schema issues, deny lists naming nothing, warnings and the server's validation
// errors at the path they name). Under the page's CSP, CodeMirror's injected <style> carries the request's nonce
// (EditorView.cspNonce). Tab is not captured (indentWithTab off), so Tab and Shift+Tab leave the editor, and Escape
// moves focus to the problem summary: the keyboard never gets stuck.
import { useEffect, useMemo, useRef, useSyncExternalStore } from "react";
import CodeMirror, { type ReactCodeMirrorRef } from "@uiw/react-codemirror";
import { EditorView, keymap } from "@codemirror/view";
import { json as jsonLanguage } from "@codemirror/lang-json";
import { lintGutter, setDiagnostics, type Diagnostic } from "@codemirror/lint";
import { Prec, type EditorState } from "@codemirror/state";
import { DraftProblems } from "./draft-problems";
import { locatePath } from "./json-paths";
import type { DraftState } from "./use-policy-draft";

export type PathIssue = { path: string; message: string };

function subscribeDark(onChange: () => void) {
  const query = window.matchMedia("(prefers-color-scheme: dark)");
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}
const isDark = () => window.matchMedia("(prefers-color-scheme: dark)").matches;

/** The index of `entry` in the list at `path` of the parsed draft, so the marker sits on the entry itself. */
function entryPath(json: unknown, path: string, entry: string): string {
  let node: unknown = json;
  for (const key of path.split("."))
    node = node && typeof node === "object" ? (node as Record<string, unknown>)[key] : undefined;
  const index = Array.isArray(node) ? node.indexOf(entry) : -1;
  return index >= 0 ? `${path}.${index}` : path;
}

export function draftDiagnostics(
  state: EditorState,
  draft: DraftState,
  serverIssues: readonly PathIssue[],
): Diagnostic[] {
  const at = (path: string, severity: Diagnostic["severity"], message: string): Diagnostic | undefined => {
    const range = locatePath(state, path);
    return (
      range && {
        ...range,
        severity,
        message: `${path}: ${message}`,
        source: severity === "error" ? "check" : "warning",
      }
    );
  };
  if (draft.jsonSyntax) {
    const from = Math.min(draft.jsonSyntax.offset, state.doc.length);
    return [
      {
        from,
        to: Math.min(from + 1, state.doc.length),
        severity: "error",
        message: `Not valid JSON: ${draft.jsonSyntax.message}`,
      },
    ];
  }
  const out: Array<Diagnostic | undefined> = [
    ...(draft.check?.issues ?? []).map((i) => at(i.path, "error", i.message)),
    ...(draft.check?.unknownDenies ?? []).flatMap((d) =>
      d.entries.map((e) =>
        at(
          entryPath(draft.json, d.path, e),
          "error",
          `"${e}" matches no tool, group or profile: this deny denies nothing`,
        ),
      ),
    ),
    ...(draft.check?.warnings ?? []).flatMap((w) =>
      w.source ? [at(w.source.replace(/ \(.*\)$/, ""), "warning", w.message)] : [],
    ),
    ...serverIssues.map((i) => at(i.path, "error", `refused by the server: ${i.message}`)),
  ];
  return out.filter((d): d is Diagnostic => d !== undefined);
}

const DARK_CONTRAST = EditorView.theme(
  {
    "&": { backgroundColor: "#0f172a" },
    ".cm-gutters": { backgroundColor: "#0f172a", color: "#aab2bf" },
    ".cm-activeLineGutter": { backgroundColor: "#1e293b" },
  },
  { dark: true },
);

export function JsonEditor({
  draft,
  nonce,
  serverIssues = [],
}: {
  draft: DraftState;
  nonce?: string;
  serverIssues?: readonly PathIssue[];
}) {
  const editor = useRef<ReactCodeMirrorRef>(null);
  const dark = useSyncExternalStore(subscribeDark, isDark, () => false);
  const extensions = useMemo(
    () => [
      jsonLanguage(),
      lintGutter(),
      EditorView.lineWrapping,
      // tabindex: the content is the keyboard's way into the scrolled region (axe counts contenteditable alone as not focusable).
      EditorView.contentAttributes.of({
        "aria-label": "Policy document (JSON)",
        "aria-describedby": "policy-json-help",
        tabindex: "0",
      }),
      // The dark theme's own background leaves its line numbers (3.9:1) and property names (4.4:1) below AA's 4.5:1;
      // on the app's slate-900 every token colour passes.
      ...(dark ? [Prec.highest(DARK_CONTRAST)] : []),
      // Above the default keymap, whose Escape only narrows a multiple selection.
      Prec.highest(
        keymap.of([{ key: "Escape", run: () => (document.getElementById("policy-json-problems")?.focus(), true) }]),
      ),
      ...(nonce ? [EditorView.cspNonce.of(nonce)] : []),
    ],
    [nonce, dark],
  );
  // Markers follow the text and the checks: recomputed whenever either changes.
  useEffect(() => {
    const view = editor.current?.view;
    if (!view || view.state.doc.toString() !== draft.text) return;
    view.dispatch(setDiagnostics(view.state, draftDiagnostics(view.state, draft, serverIssues)));
  }, [draft, serverIssues]);
  return (
    <div className="space-y-2">
      <p className="text-sm font-semibold" id="policy-json-label">
        Policy document (JSON)
      </p>
      <div id="policy-json-problems" tabIndex={-1} className="rounded focus-visible:outline-2">
        <DraftProblems draft={draft} />
      </div>
      <CodeMirror
        ref={editor}
        value={draft.text}
        onChange={(value) => draft.setText(value)}
        extensions={extensions}
        theme={dark ? "dark" : "light"}
        indentWithTab={false}
        basicSetup={{
          lineNumbers: true,
          foldGutter: true,
          highlightActiveLine: true,
          autocompletion: false,
          searchKeymap: true,
        }}
        height="28rem"
        className="overflow-hidden rounded-md border border-slate-300 text-xs dark:border-slate-700"
        onCreateEditor={(view) =>
          view.dispatch(setDiagnostics(view.state, draftDiagnostics(view.state, draft, serverIssues)))
        }
      />
      <p id="policy-json-help" className="text-xs text-slate-500 dark:text-slate-400">
        Checked as you type with the same schema the server uses; problems are marked on their line. Missing sections
        get their defaults. Tab leaves the editor, Escape jumps to the problem list.
      </p>
    </div>
  );
}
