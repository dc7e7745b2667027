"use client";
// Pickers of the policy forms: a new record key (an agent, profile or provider id) checked as you type, and a
// profile choice. Field styles: field-controls.tsx.
import { useId, useState } from "react";
import { BUILTIN_PROFILE_IDS } from "@/lib/policy";
import { button, input } from "./field-controls";

/** "Add a …": an id checked as you type; Add is enabled only for a valid one. */
export function AddKeyForm({
  label,
  button: buttonText,
  problemOf,
  onAdd,
  placeholder,
}: {
  label: string;
  button: string;
  problemOf: (key: string) => string | undefined;
  onAdd: (key: string) => void;
  placeholder?: string;
}) {
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
          className={`${input} w-56`}
          value={text}
          placeholder={placeholder}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-e`}
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), add())}
        />
      </label>
      <button type="button" className={button} disabled={text.trim() === "" || problem !== undefined} onClick={add}>
        {buttonText}
      </button>
      <span id={`${id}-e`} className="text-xs text-rose-700 dark:text-rose-300">
        {problem ? `✕ ${problem}` : ""}
      </span>
    </div>
  );
}

/** A profile choice: none, a built-in or one of the document's own. */
export function ProfileSelect({
  label,
  value,
  custom,
  onChange,
}: {
  label: string;
  value: string | undefined;
  custom: readonly string[];
  onChange: (profile: string | undefined) => void;
}) {
  return (
    <label className="flex flex-col gap-0.5 text-xs">
      <span className="font-medium">{label}</span>
      <select className={input} value={value ?? ""} onChange={(e) => onChange(e.target.value || undefined)}>
        <option value="">none (no narrowing)</option>
        <optgroup label="Built-in">
          {BUILTIN_PROFILE_IDS.map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </optgroup>
        {custom.length > 0 && (
          <optgroup label="Your profiles">
            {custom.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </optgroup>
        )}
        {value && ![...BUILTIN_PROFILE_IDS, ...custom].includes(value) && (
          <option value={value}>{value} (unknown)</option>
        )}
      </select>
    </label>
  );
}
