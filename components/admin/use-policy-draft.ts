"use client";
// The editor's draft: the JSON text is the source of truth (the structured controls rewrite it), parsed and
// checked on every change with the same zod schema and engine the server uses. The draft remembers the version
// it started from (its base): a background refetch of the policy must not move the base under it, or a save
// would silently overwrite someone else's version instead of being refused as a conflict.
import { useMemo, useState } from "react";
import { jsonLanguage } from "@codemirror/lang-json";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { checkDraft, type DraftCheck } from "@/lib/admin/draft-checks";
import { sameValue } from "@/lib/admin/policy-diff";
import { reapplyDraft, type ReapplyResult } from "@/lib/admin/policy-merge";
import type { PolicyResponse } from "./types";

/** A JSON syntax error with where it is (1-based line and column), for the editor's marker and the message. */
export type JsonSyntaxError = { message: string; offset: number; line: number; column: number };

export type DraftState = {
  text: string;
  setText: (text: string) => void;
  /** Replace the draft with a document (structured controls, import, history). */
  setDocument: (document: unknown) => void;
  reset: () => void;
  /** The version the draft is based on (what a save sends as baseVersion). */
  baseVersion: number;
  /** After a 409: replay the draft's own edits onto `latest`, which becomes the new base; the result stays unsaved. */
  reapply: (latest: PolicyResponse) => ReapplyResult | undefined;
  jsonError?: string;
  jsonSyntax?: JsonSyntaxError;
  json?: unknown;
  check?: DraftCheck;
  /** The valid parsed draft, when it differs from the saved one. */
  changedDocument?: PolicyDocument;
  dirty: boolean;
};

const pretty = (value: unknown) => JSON.stringify(value, null, 2);

/** Where the JSON grammar (the editor's own parser) first fails to read the text. */
function firstErrorOffset(text: string): number | undefined {
  let at: number | undefined;
  jsonLanguage.parser.parse(text).iterate({
    enter: (node) => {
      if (at !== undefined) return false;
      if (node.type.isError) at = node.from;
      return at === undefined;
    },
  });
  return at;
}

/**
 * Where a JSON.parse error is. Engines differ: some name it ("at position 93", "(line 5 column 3)"), current
 * Chromium often only quotes the text; then the JSON grammar's first error node says where.
 */
export function locateJsonError(text: string, message: string): JsonSyntaxError {
  const lineCol = /line (\d+) column (\d+)/.exec(message);
  const position = /position (\d+)/.exec(message);
  let offset: number;
  if (lineCol) {
    const lines = text.split("\n");
    const line = Math.min(Number(lineCol[1]), lines.length);
    offset = lines.slice(0, line - 1).reduce((n, l) => n + l.length + 1, 0) + Number(lineCol[2]) - 1;
  } else if (position) offset = Number(position[1]);
  else offset = firstErrorOffset(text) ?? text.length;
  offset = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, offset).split("\n");
  return { message, offset, line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

export function usePolicyDraft(saved: PolicyResponse | undefined, tools: ToolMeta[] | undefined): DraftState {
  const [edit, setEdit] = useState<{ text: string; base: PolicyResponse } | null>(null);
  const base = edit?.base ?? saved;
  const text = edit?.text ?? (saved ? pretty(saved.document) : "");
  const json = useMemo((): { ok: true; value: unknown } | { ok: false; error: JsonSyntaxError } => {
    try {
      return { ok: true, value: JSON.parse(text || "{}") };
    } catch (error) {
      return { ok: false, error: locateJsonError(text, error instanceof Error ? error.message : String(error)) };
    }
  }, [text]);
  const check = useMemo(() => (json.ok && tools ? checkDraft(json.value, tools) : undefined), [json, tools]);
  const dirty = edit !== null && (!json.ok || !base || !check?.document || !sameValue(check.document, base.document));
  const setText = (next: string) => {
    if (base) setEdit({ text: next, base });
  };
  return {
    text,
    setText,
    setDocument: (document) => setText(pretty(document)),
    reset: () => setEdit(null),
    baseVersion: base?.version ?? 0,
    reapply: (latest) => {
      if (!base || !json.ok) return undefined;
      const result = reapplyDraft({ base: base.document, draft: json.value, latest: latest.document });
      setEdit({ text: pretty(result.document), base: latest });
      return result;
    },
    ...(json.ok
      ? { json: json.value }
      : {
          jsonError: `${json.error.message} (line ${json.error.line}, column ${json.error.column})`,
          jsonSyntax: json.error,
        }),
    ...(check ? { check } : {}),
    ...(dirty && check?.document && check.issues.length === 0 ? { changedDocument: check.document } : {}),
    dirty,
  };
}
