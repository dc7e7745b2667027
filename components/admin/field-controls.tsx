"use client";
// The one field library of the policy forms: a field validated as you type with a zod schema from lib/policy (the
// draft is only rewritten with a value the schema accepts, so the JSON view always holds the last valid value),
// sizes in KiB/MiB, durations in seconds, lists as comma-separated text, tool lists checked against the known tools,
// a per-item form state (item-form.tsx) for records whose fields depend on each other, and pickers of a record
// key or a profile (key-pickers.tsx). A field commits as you type, or on blur/Enter (`commitOn="blur"`) where a
// half-typed value would be a different, valid one (a tool list: "rea" matches nothing but is kept).
import { useId, useState, type ReactNode } from "react";
import type { z } from "zod";
import { linesOf, toolListNote } from "@/lib/admin/form-checks";
import { formatByteSize, parseByteSize, type ToolMeta } from "@/lib/policy";
import { parseList } from "./list-input";

export const box = "space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800";
export const input =
  "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm dark:border-slate-700 dark:bg-slate-900 aria-[invalid=true]:border-rose-600";
export const help = "text-xs text-slate-600 dark:text-slate-400";
export const button =
  "rounded-md border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 disabled:opacity-50 dark:border-slate-700 dark:hover:bg-slate-800";

/**
 * An issue in plain words: the schema's own messages are kept; zod's generic ones ("Too small: expected string to
 * have >=1 characters") are said the way a person would ("cannot be empty"). `amount` shows a bound in the
 * field's unit (a size in MiB, not a byte count).
 */
export function plainMessage(
  issue: z.core.$ZodIssue,
  amount: (n: number) => string = (n) => n.toLocaleString("en"),
): string {
  const bound = (value: unknown) =>
    typeof value === "bigint" ? Number(value) : typeof value === "number" ? value : NaN;
  if (issue.code === "too_small") {
    const min = bound(issue.minimum);
    if (issue.origin === "string" && min === 1) return "cannot be empty";
    if (issue.origin === "array") return min === 1 ? "name at least one" : `name at least ${min}`;
    if (issue.origin === "number") return `at least ${amount(min)}`;
  }
  if (issue.code === "too_big") {
    const max = bound(issue.maximum);
    if (issue.origin === "number") return `at most ${amount(max)}`;
    if (issue.origin === "array") return `at most ${max} entries`;
    if (issue.origin === "string") return `at most ${max} characters`;
  }
  if (issue.code === "invalid_type" && issue.expected === "number")
    return issue.message.includes("received undefined") ? "required" : "a number";
  if (issue.code === "invalid_type" && issue.expected === "int") return "a whole number";
  if (issue.code === "invalid_format" && issue.format === "url")
    return "a web address starting with http:// or https://";
  return issue.message;
}

/** The first message of a failed parse, in plain words, with the entry it is about. */
export function firstIssue(
  result: { success: boolean; error?: z.ZodError },
  amount?: (n: number) => string,
): string | undefined {
  if (result.success) return undefined;
  const issue = result.error?.issues[0];
  if (!issue) return "not valid";
  const message = plainMessage(issue, amount);
  // In a list, name the entry ("entry 2: cannot be empty"); other paths are the field's own.
  const index = issue.path.find((p) => typeof p === "number");
  return typeof index === "number" ? `entry ${index + 1}: ${message}` : message;
}

type Read<T> = (text: string) => { ok: true; value: T } | { ok: false; reason: string };

/**
 * A text field: `read` turns the text into a value or a reason; a valid value is committed at once (or on blur and
 * Enter with `commitOn="blur"`). `warn` names a problem that does not stop the commit (an unknown tool name).
 */
export function TextField<T>({
  label,
  value,
  show,
  read,
  onCommit,
  description,
  warn,
  commitOn = "change",
  multiline = false,
  className = "w-40",
  placeholder,
  testId,
}: {
  label: string;
  value: T;
  show: (value: T) => string;
  read: Read<T>;
  onCommit: (value: T) => void;
  description?: ReactNode;
  warn?: (text: string) => string | undefined;
  commitOn?: "change" | "blur";
  multiline?: boolean;
  className?: string;
  placeholder?: string;
  testId?: string;
}) {
  const id = useId();
  const shown = show(value);
  const [text, setText] = useState(shown);
  const [last, setLast] = useState(shown);
  const [error, setError] = useState<string>();
  if (shown !== last) {
    // The draft changed elsewhere (JSON editor, import, another field): show it.
    setLast(shown);
    setText(shown);
    setError(undefined);
  }
  const commit = (parsed: { ok: true; value: T }) => {
    const committed = show(parsed.value);
    if (commitOn === "change") setLast(committed);
    if (committed !== shown) onCommit(parsed.value);
  };
  const change = (next: string) => {
    setText(next);
    const parsed = read(next);
    if (!parsed.ok) return setError(parsed.reason);
    setError(undefined);
    if (commitOn === "change") commit(parsed);
  };
  const blur = () => {
    if (error) return;
    const parsed = read(text);
    if (commitOn === "blur" && parsed.ok) commit(parsed);
    else setText(show(value));
  };
  const warning = error ? undefined : warn?.(text);
  const common = {
    id,
    "data-testid": testId,
    className: `${input} ${className}`,
    value: text,
    placeholder,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": `${id}-d ${id}-e`,
    onChange: (e: { target: { value: string } }) => change(e.target.value),
    onBlur: blur,
  };
  return (
    <div className="flex flex-col gap-0.5 text-xs">
      <label htmlFor={id} className="font-medium">
        {label}
      </label>
      {multiline ? (
        <textarea {...common} rows={3} />
      ) : (
        <input
          {...common}
          onKeyDown={(e) => e.key === "Enter" && commitOn === "blur" && (e.preventDefault(), blur())}
        />
      )}
      <span
        id={`${id}-e`}
        role={error ? "alert" : undefined}
        className={error ? "text-rose-700 dark:text-rose-300" : "text-amber-800 dark:text-amber-300"}
      >
        {error ? `✕ ${error} (the draft keeps ${shown || "nothing"})` : warning ? `⚠ ${warning}` : ""}
      </span>
      {description && (
        <span id={`${id}-d`} className={help}>
          {description}
        </span>
      )}
    </div>
  );
}

/** A text read through a zod schema. */
export function viaSchema<T>(
  schema: z.ZodType<T>,
  toInput: (text: string) => unknown = (t) => t,
  amount?: (n: number) => string,
): Read<T> {
  return (text) => {
    const result = schema.safeParse(toInput(text));
    return result.success
      ? { ok: true, value: result.data }
      : { ok: false, reason: firstIssue(result, amount) ?? "not valid" };
  };
}

/** Sizes: "512 KiB", "2 MiB", then the schema's own bounds. */
export function readBytes(schema: z.ZodType<number>): Read<number> {
  return (text) => {
    const parsed = parseByteSize(text);
    if (!parsed.ok) return { ok: false, reason: parsed.reason };
    return viaSchema(schema, () => parsed.bytes, formatByteSize)(text);
  };
}

export function ByteField(props: {
  label: string;
  value: number;
  schema: z.ZodType<number>;
  onCommit: (n: number) => void;
  description?: ReactNode;
}) {
  return <TextField {...props} show={formatByteSize} read={readBytes(props.schema)} />;
}

/** Durations stored in milliseconds, shown and typed in seconds (decimals allowed: 0.5 = 500 ms). */
export function SecondsField({
  label,
  value,
  schema,
  onCommit,
  description,
}: {
  label: string;
  value: number;
  schema: z.ZodType<number>;
  onCommit: (ms: number) => void;
  description?: ReactNode;
}) {
  return (
    <TextField
      label={`${label} (seconds)`}
      value={value}
      show={(ms) => String(ms / 1000)}
      read={(text) => {
        const trimmed = text.trim();
        if (!/^\d+(\.\d+)?$/.test(trimmed)) return { ok: false, reason: "a number of seconds, such as 30 or 0.5" };
        return viaSchema(
          schema,
          () => Math.round(Number(trimmed) * 1000),
          (ms) => `${ms / 1000} seconds`,
        )(text);
      }}
      onCommit={onCommit}
      description={description}
      className="w-24"
    />
  );
}

export function NumberField({
  label,
  value,
  schema,
  onCommit,
  description,
  unit,
}: {
  label: string;
  value: number;
  schema: z.ZodType<number>;
  onCommit: (n: number) => void;
  description?: ReactNode;
  unit?: string;
}) {
  return (
    <TextField
      label={unit ? `${label} (${unit})` : label}
      value={value}
      show={String}
      read={(text) =>
        /^\s*-?\d+(\.\d+)?\s*$/.test(text)
          ? viaSchema(schema, () => Number(text))(text)
          : { ok: false, reason: "a number" }
      }
      onCommit={onCommit}
      description={description}
      className="w-24"
    />
  );
}

/** A list of entries as comma-separated text, each entry checked by the schema of the list. */
export function ListField({
  label,
  value,
  schema,
  onCommit,
  description,
  className = "w-full",
}: {
  label: string;
  value: readonly string[];
  schema: z.ZodType<string[]>;
  onCommit: (list: string[]) => void;
  description?: ReactNode;
  className?: string;
}) {
  return (
    <TextField
      label={label}
      value={[...value]}
      show={(list) => list.join(", ")}
      read={viaSchema(schema, parseList)}
      onCommit={onCommit}
      description={description}
      className={`font-mono ${className}`}
    />
  );
}

/** A choice among a few values, each explained in plain words (a radio group: the explanations stay visible). */
export function Choice<T extends string>({
  legend,
  name,
  value,
  options,
  onChange,
  description,
}: {
  legend: string;
  name: string;
  value: T;
  options: ReadonlyArray<{ value: T; label: string; help: string }>;
  onChange: (v: T) => void;
  description?: ReactNode;
}) {
  return (
    <fieldset className="space-y-1">
      <legend className="text-xs font-medium">{legend}</legend>
      {description && <p className={help}>{description}</p>}
      {options.map((o) => (
        <label key={o.value} className="flex items-start gap-2 text-xs">
          <input
            type="radio"
            name={name}
            value={o.value}
            checked={value === o.value}
            onChange={() => onChange(o.value)}
            className="mt-0.5"
          />
          <span>
            <span className="font-medium">{o.label}</span>{" "}
            <span className="text-slate-600 dark:text-slate-400">— {o.help}</span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

export function Check({
  label,
  checked,
  onChange,
  description,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  description?: string;
}) {
  const id = useId();
  return (
    <div className="text-xs">
      <label className="flex items-center gap-1.5 font-medium">
        <input
          type="checkbox"
          checked={checked}
          onChange={(e) => onChange(e.target.checked)}
          aria-describedby={description ? id : undefined}
        />
        {label}
      </label>
      {description && (
        <p id={id} className={`${help} ml-5`}>
          {description}
        </p>
      )}
    </div>
  );
}

/** An optional text: empty means "not set"; otherwise the schema decides. */
export function readOptional(schema: z.ZodType): Read<string | undefined> {
  return (text) =>
    text.trim() === ""
      ? { ok: true, value: undefined }
      : (viaSchema(schema)(text) as ReturnType<Read<string | undefined>>);
}

/** A tool list (names, group:… groups, x* wildcards), comma-separated; unknown names are flagged, and kept. */
export function ToolListField({
  label,
  value,
  onCommit,
  tools,
  description,
}: {
  label: string;
  value: readonly string[] | undefined;
  onCommit: (list: string[] | undefined) => void;
  tools: readonly ToolMeta[];
  description?: ReactNode;
}) {
  return (
    <TextField<readonly string[] | undefined>
      label={label}
      value={value}
      show={(list) => (list ?? []).join(", ")}
      read={(text) => {
        const list = parseList(text);
        return { ok: true, value: list.length > 0 ? list : undefined };
      }}
      onCommit={(list) => onCommit(list ? [...list] : undefined)}
      warn={(text) => toolListNote(parseList(text), tools)}
      commitOn="blur"
      className="w-full font-mono"
      placeholder="e.g. read, group:web, memory_*"
      description={description}
    />
  );
}

/** One entry per line (starter prompts), checked as a whole list by `schema`; no line means "not set". */
export function LinesField({
  label,
  value,
  onCommit,
  schema,
  description,
}: {
  label: string;
  value: readonly string[] | undefined;
  onCommit: (list: string[] | undefined) => void;
  schema: z.ZodType;
  description?: ReactNode;
}) {
  return (
    <TextField<readonly string[] | undefined>
      label={label}
      value={value}
      show={(list) => (list ?? []).join("\n")}
      read={(text) => {
        const lines = linesOf(text);
        return lines.length === 0
          ? { ok: true, value: undefined }
          : (viaSchema(schema, () => lines) as Read<string[]>)(text);
      }}
      onCommit={(list) => onCommit(list ? [...list] : undefined)}
      commitOn="blur"
      multiline
      className="w-full"
      description={description}
    />
  );
}
