"use client";
// The form state of a record whose fields depend on each other (a routing rule, a new MCP server, a network rule):
// its fields' texts live together and the record is checked as a whole. Field styles and messages: field-controls.
import { useId, useState, type ReactNode } from "react";
import type { z } from "zod";
import { help, input, plainMessage } from "./field-controls";

/**
 * The form state of one record whose fields depend on each other: the fields' texts live here, `build` turns them
 * into the record and `validate` checks it (the record's schema and its place in the document); the draft is
 * rewritten only with a valid record. A change of the record in the draft (JSON editor) resets the texts.
 */
export function useItemForm<F extends Record<string, unknown>, V>({
  value,
  toForm,
  build,
  validate,
  commit,
}: {
  value: V | undefined;
  toForm: (v: V | undefined) => F;
  build: (f: F) => unknown;
  validate: (
    input: unknown,
  ) => { ok: true; value: V } | { ok: false; issues: Array<{ path: string; message: string }> };
  commit?: (v: V) => void;
}) {
  const key = JSON.stringify(value ?? null);
  const [state, setState] = useState({ form: toForm(value), seen: key });
  if (key !== state.seen) setState({ form: toForm(value), seen: key });
  const result = validate(build(state.form));
  const set = (patch: Partial<F>) => {
    const form = { ...state.form, ...patch };
    const next = validate(build(form));
    if (next.ok && commit) {
      setState({ form, seen: JSON.stringify(next.value) });
      commit(next.value);
    } else setState({ form, seen: state.seen });
  };
  const reset = () => setState({ form: toForm(value), seen: key });
  const issueFor = (prefix: string) =>
    result.ok ? undefined : result.issues.find((i) => i.path === prefix || i.path.startsWith(`${prefix}.`))?.message;
  return { form: state.form, set, reset, result, issueFor };
}

/** zod issues as dotted paths (relative to the record). */
export function issuesOfResult(result: { success: boolean; error?: z.ZodError }) {
  return (result.error?.issues ?? []).map((i) => ({ path: i.path.map(String).join("."), message: plainMessage(i) }));
}

/** A labelled input whose text belongs to a useItemForm; the record's issue for this field is shown under it. */
export function ItemInput({
  label,
  value,
  onChange,
  issue,
  description,
  className = "w-full",
  placeholder,
}: {
  label: string;
  value: string;
  onChange: (t: string) => void;
  issue?: string;
  description?: ReactNode;
  className?: string;
  placeholder?: string;
}) {
  const id = useId();
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      <input
        id={id}
        className={`${input} ${className}`}
        value={value}
        placeholder={placeholder}
        aria-invalid={issue ? true : undefined}
        aria-describedby={`${id}-d ${id}-e`}
        onChange={(e) => onChange(e.target.value)}
      />
      <span id={`${id}-e`} className="text-rose-700 dark:text-rose-300">
        {issue ? `✕ ${issue}` : ""}
      </span>
      {description && (
        <span id={`${id}-d`} className={help}>
          {description}
        </span>
      )}
    </div>
  );
}
