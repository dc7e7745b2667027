"use client";
// A list of tool patterns as comma-separated text, committed on blur or Enter (so typing "a," is not rewritten).
import { useState } from "react";

export function parseList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function ListInput({
  label,
  value,
  onCommit,
  help,
}: {
  label: string;
  value: readonly string[] | undefined;
  onCommit: (list: string[] | undefined) => void;
  help?: string;
}) {
  const joined = (value ?? []).join(", ");
  const [text, setText] = useState(joined);
  const [lastJoined, setLastJoined] = useState(joined);
  if (joined !== lastJoined) {
    // The document changed elsewhere (JSON editor, import): show it.
    setLastJoined(joined);
    setText(joined);
  }
  const commit = () => {
    const list = parseList(text);
    onCommit(list.length > 0 ? list : undefined);
  };
  return (
    <label className="flex flex-col gap-0.5 text-xs">
      <span className="font-medium">{label}</span>
      <input
        className="rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-xs dark:border-slate-700 dark:bg-slate-900"
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => {
          if (e.key === "Enter") {
            e.preventDefault();
            commit();
          }
        }}
      />
      {help && <span className="text-slate-500 dark:text-slate-400">{help}</span>}
    </label>
  );
}
