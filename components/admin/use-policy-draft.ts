"use client";
// The editor's draft: the JSON text is the source of truth (the structured controls rewrite it), parsed and
// checked on every change with the same zod schema and engine the server uses.
import { useMemo, useState } from "react";
import type { PolicyDocument, ToolMeta } from "@/lib/policy";
import { checkDraft, type DraftCheck } from "@/lib/admin/draft-checks";
import { sameValue } from "@/lib/admin/policy-diff";
import type { PolicyResponse } from "./types";

export type DraftState = {
  text: string;
  setText: (text: string) => void;
  /** Replace the draft with a document (structured controls, import, history). */
  setDocument: (document: unknown) => void;
  reset: () => void;
  jsonError?: string;
  json?: unknown;
  check?: DraftCheck;
  /** The valid parsed draft, when it differs from the saved one. */
  changedDocument?: PolicyDocument;
  dirty: boolean;
};

export function usePolicyDraft(saved: PolicyResponse | undefined, tools: ToolMeta[] | undefined): DraftState {
  const [edited, setEdited] = useState<string | null>(null);
  const text = edited ?? (saved ? JSON.stringify(saved.document, null, 2) : "");
  const json = useMemo((): { ok: true; value: unknown } | { ok: false; error: string } => {
    try {
      return { ok: true, value: JSON.parse(text || "{}") };
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  }, [text]);
  const check = useMemo(() => (json.ok && tools ? checkDraft(json.value, tools) : undefined), [json, tools]);
  const dirty = edited !== null && (!json.ok || !saved || !check?.document || !sameValue(check.document, saved.document));
  return {
    text,
    setText: setEdited,
    setDocument: (document) => setEdited(JSON.stringify(document, null, 2)),
    reset: () => setEdited(null),
    ...(json.ok ? { json: json.value } : { jsonError: json.error }),
    ...(check ? { check } : {}),
    ...(dirty && check?.document && check.issues.length === 0 ? { changedDocument: check.document } : {}),
    dirty,
  };
}
