"use client";
// Fields of the policy forms: each keeps its own text while you type, says what is wrong as you type (the
// document's zod schemas, lib/admin/form-checks.ts) and writes the draft on blur or Enter, and only a valid value.
// The draft's JSON is the source of truth: when it changes elsewhere (JSON tab, import), the field shows it.
import { useId, useState, type ReactNode } from "react";
import type { z } from "zod";
import { fieldProblem, linesOf, toolListNote } from "@/lib/admin/form-checks";
import { BUILTIN_PROFILE_IDS, type ToolMeta } from "@/lib/policy";
import { parseList } from "./list-input";

export const inputClass = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-700 dark:bg-slate-900 aria-[invalid=true]:border-rose-600";
export const buttonClass = "rounded-md border border-slate-300 px-2 py-1 text-xs dark:border-slate-700";

/** Local text that follows the document when it changes elsewhere. */
function useSyncedText(shown: string): [string, (t: string) => void] {
  const [text, setText] = useState(shown);
  const [last, setLast] = useState(shown);
  if (shown !== last) {
    setLast(shown);
    setText(shown);
  }
  return [text, setText];
}

function Note({ id, kind, children }: { id: string; kind: "error" | "warning" | "help"; children: ReactNode }) {
  const color = kind === "error" ? "text-rose-700 dark:text-rose-300" : kind === "warning" ? "text-amber-800 dark:text-amber-300" : "text-slate-600 dark:text-slate-400";
  return (
    <span id={id} className={color}>
      {kind === "error" ? "✕ " : kind === "warning" ? "⚠ " : ""}
      {children}
    </span>
  );
}

/** A text (or multi-line) value; empty means "not set" when `optional`. */
export function TextField({
  label,
  value,
  onCommit,
  schema,
  help,
  multiline = false,
  optional = false,
  placeholder,
}: {
  label: string;
  value: string | undefined;
  onCommit: (value: string | undefined) => void;
  schema: z.ZodType;
  help?: string;
  multiline?: boolean;
  optional?: boolean;
  placeholder?: string;
}) {
  const id = useId();
  const [text, setText] = useSyncedText(value ?? "");
  const empty = text.trim() === "";
  const problem = optional && empty ? undefined : fieldProblem(schema, text);
  const commit = () => {
    if (problem) return;
    const next = optional && empty ? undefined : text;
    if (next !== value) onCommit(next);
  };
  const common = {
    id: `${id}-input`,
    className: `${inputClass} w-full`,
    value: text,
    placeholder,
    "aria-invalid": problem ? true : undefined,
    "aria-describedby": `${id}-note`,
    onChange: (e: { target: { value: string } }) => setText(e.target.value),
    onBlur: commit,
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      <label htmlFor={`${id}-input`} className="font-medium">{label}</label>
      {multiline ? (
        <textarea {...common} rows={3} />
      ) : (
        <input {...common} onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), commit())} />
      )}
      {problem ? <Note id={`${id}-note`} kind="error">{problem}</Note> : help ? <Note id={`${id}-note`} kind="help">{help}</Note> : <span id={`${id}-note`} />}
    </div>
  );
}

/** A tool list (names, group:… groups, x* wildcards), comma-separated; unknown names are flagged as you type. */
export function ToolListField({ label, value, onCommit, tools, help }: { label: string; value: readonly string[] | undefined; onCommit: (list: string[] | undefined) => void; tools: readonly ToolMeta[]; help?: string }) {
  const id = useId();
  const [text, setText] = useSyncedText((value ?? []).join(", "));
  const note = toolListNote(parseList(text), tools);
  const commit = () => {
    const list = parseList(text);
    const next = list.length > 0 ? list : undefined;
    if ((next ?? []).join(",") !== (value ?? []).join(",")) onCommit(next);
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      <label htmlFor={`${id}-input`} className="font-medium">{label}</label>
      <input
        id={`${id}-input`}
        className={`${inputClass} font-mono`}
        value={text}
        placeholder="e.g. read, group:web, memory_*"
        aria-describedby={`${id}-note`}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit();
          }
        }}
      />
      {note ? <Note id={`${id}-note`} kind="warning">{note}</Note> : help ? <Note id={`${id}-note`} kind="help">{help}</Note> : <span id={`${id}-note`} />}
    </div>
  );
}

/** One entry per line (starter prompts), checked as a whole list by `schema`. */
export function LinesField({ label, value, onCommit, schema, help }: { label: string; value: readonly string[] | undefined; onCommit: (list: string[] | undefined) => void; schema: z.ZodType; help?: string }) {
  const id = useId();
  const [text, setText] = useSyncedText((value ?? []).join("\n"));
  const lines = linesOf(text);
  const problem = lines.length === 0 ? undefined : fieldProblem(schema, lines);
  const commit = () => {
    if (problem) return;
    const next = lines.length > 0 ? lines : undefined;
    if ((next ?? []).join("\n") !== (value ?? []).join("\n")) onCommit(next);
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      <label htmlFor={`${id}-input`} className="font-medium">{label}</label>
      <textarea id={`${id}-input`} className={`${inputClass} w-full`} rows={3} value={text} aria-invalid={problem ? true : undefined} aria-describedby={`${id}-note`} onChange={(e) => setText(e.target.value)} onBlur={commit} />
      {problem ? <Note id={`${id}-note`} kind="error">{problem}</Note> : help ? <Note id={`${id}-note`} kind="help">{help}</Note> : <span id={`${id}-note`} />}
    </div>
  );
}

/** "Add a …": an id checked as you type; Add is enabled only for a valid one. */
export function AddKeyForm({ label, button, problemOf, onAdd, placeholder }: { label: string; button: string; problemOf: (key: string) => string | undefined; onAdd: (key: string) => void; placeholder?: string }) {
  const id = useId();
  const [text, setText] = useState("");
  const problem = text === "" ? undefined : problemOf(text);
  const add = () => {
    if (text.trim() === "" || problemOf(text)) return;
    onAdd(text.trim());
    setText("");
  };
  return (
    <div className="flex flex-wrap items-end gap-2">
      <label className="flex flex-col gap-0.5 text-xs">
        <span className="font-medium">{label}</span>
        <input
          className={`${inputClass} w-56`}
          value={text}
          placeholder={placeholder}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-note`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), add())}
        />
      </label>
      <button type="button" className={buttonClass} disabled={text.trim() === "" || problem !== undefined} onClick={add}>
        {button}
      </button>
      {problem ? <Note id={`${id}-note`} kind="error">{problem}</Note> : <span id={`${id}-note`} />}
    </div>
  );
}

/** A profile choice: none, a built-in or one of the document's own. */
export function ProfileSelect({ label, value, custom, onChange }: { label: string; value: string | undefined; custom: readonly string[]; onChange: (profile: string | undefined) => void }) {
  return (
    <label className="flex flex-col gap-0.5 text-xs">
      <span className="font-medium">{label}</span>
      <select className={inputClass} value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">none (no narrowing)</option>
        <optgroup label="Built-in">
          {BUILTIN_PROFILE_IDS.map((p) => <option key={p} value={p}>{p}</option>)}
        </optgroup>
        {custom.length > 0 && (
          <optgroup label="Your profiles">
            {custom.map((p) => <option key={p} value={p}>{p}</option>)}
          </optgroup>
        )}
        {value && ![...BUILTIN_PROFILE_IDS, ...custom].includes(value) && <option value={value}>{value} (unknown)</option>}
      </select>
    </label>
  );
}
