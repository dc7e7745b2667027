"use client";
// An MCP server's environment variables (a program) or HTTP headers (a URL): they often carry API tokens, so they
// are stored encrypted and are write-only (lib/tools/mcp/secrets.ts). The API sends each stored one back as its
// name with SECRET_MASK, which the form shows as "set"; a value typed here replaces it when the policy is saved,
// and a name left out removes it. A renamed stored entry needs its value again: the server keeps a stored value
// only under the name it was stored with.
import { useId, useState } from "react";
import { secretNameProblem } from "@/lib/admin/form-checks";
import { SECRET_MASK } from "@/lib/policy/mcp-servers";
import { button, help, input } from "./field-controls";

type Kind = "env" | "headers";
type Entries = Record<string, string>;
const WORDS: Record<Kind, { title: string; one: string; none: string }> = {
  env: { title: "Environment variables", one: "variable", none: "No environment variables." },
  headers: { title: "HTTP headers", one: "header", none: "No headers." },
};

/** A stored entry's row: its name (renaming asks for the value again), a value field that only replaces, Remove. */
function SecretRow({
  kind,
  server,
  name,
  value,
  taken,
  onSet,
  onRemove,
}: {
  kind: Kind;
  server: string;
  name: string;
  value: string;
  taken: readonly string[];
  onSet: (name: string, value: string) => void;
  onRemove: () => void;
}) {
  const id = useId();
  const stored = value === SECRET_MASK;
  // Cleared again after typing: the stored value is kept, as if nothing had been typed.
  const [wasStored] = useState(stored);
  const [newName, setNewName] = useState(name);
  const [newValue, setNewValue] = useState(stored ? "" : value);
  const renamed = newName.trim() !== name;
  const nameProblem = renamed ? secretNameProblem(newName, { kind, taken }) : undefined;
  const problem =
    nameProblem ??
    (renamed && wasStored && newValue === ""
      ? `type the value again to rename it (the stored value stays under ${name} until then)`
      : undefined);
  const apply = (nextName: string, nextValue: string) => {
    const renaming = nextName.trim() !== name;
    if (renaming && secretNameProblem(nextName, { kind, taken })) return;
    if (nextValue === "" && wasStored) {
      if (!renaming) onSet(name, SECRET_MASK);
      return;
    }
    onSet(nextName.trim(), nextValue);
  };
  return (
    <li
      className="grid items-start gap-2 border-t border-slate-100 pt-2 sm:grid-cols-[12rem_1fr_auto] dark:border-slate-800"
      data-testid={`mcp-secret-${server}-${name}`}
    >
      <div className="flex flex-col gap-0.5 text-xs">
        <label htmlFor={`${id}-n`} className="font-medium">
          Name
          <span className="sr-only">
            {" "}
            of the {WORDS[kind].one} {name}
          </span>
        </label>
        <input
          id={`${id}-n`}
          className={`${input} font-mono`}
          value={newName}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-e`}
          onChange={(e) => setNewName(e.target.value)}
          onBlur={() => apply(newName, newValue)}
        />
      </div>
      <div className="flex flex-col gap-0.5 text-xs">
        <label htmlFor={`${id}-v`} className="font-medium">
          Value of {name}:{" "}
          {stored ? (
            <span className="font-semibold text-emerald-800 dark:text-emerald-300">set</span>
          ) : (
            "new, saved with the policy"
          )}
        </label>
        <input
          id={`${id}-v`}
          type="password"
          autoComplete="new-password"
          className={`${input} font-mono`}
          value={newValue}
          placeholder={stored ? "type to replace the stored value" : ""}
          onChange={(e) => {
            setNewValue(e.target.value);
            if (!renamed) apply(name, e.target.value);
          }}
          onBlur={() => apply(newName, newValue)}
        />
        <span id={`${id}-e`} className="text-rose-700 dark:text-rose-300">
          {problem ? `✕ ${problem}` : ""}
        </span>
      </div>
      <button type="button" className={`${button} self-center`} onClick={onRemove}>
        Remove {name}
      </button>
    </li>
  );
}

function AddSecret({
  kind,
  taken,
  onAdd,
}: {
  kind: Kind;
  taken: readonly string[];
  onAdd: (name: string, value: string) => void;
}) {
  const id = useId();
  const [name, setName] = useState("");
  const [value, setValue] = useState("");
  const problem = name === "" ? undefined : secretNameProblem(name, { kind, taken });
  const ok = name.trim() !== "" && !problem;
  const add = () => {
    if (!ok) return;
    onAdd(name.trim(), value);
    setName("");
    setValue("");
  };
  return (
    <div className="flex flex-wrap items-end gap-2 text-xs">
      <div className="flex flex-col gap-0.5">
        <label htmlFor={`${id}-n`} className="font-medium">
          New {WORDS[kind].one} name
        </label>
        <input
          id={`${id}-n`}
          className={`${input} w-48 font-mono`}
          value={name}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-e`}
          onChange={(e) => setName(e.target.value)}
        />
      </div>
      <div className="flex flex-col gap-0.5">
        <label htmlFor={`${id}-v`} className="font-medium">
          Its value
        </label>
        <input
          id={`${id}-v`}
          type="password"
          autoComplete="new-password"
          className={`${input} w-48 font-mono`}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          onKeyDown={(e) => e.key === "Enter" && (e.preventDefault(), add())}
        />
      </div>
      <button type="button" className={button} disabled={!ok} onClick={add}>
        Add {WORDS[kind].one}
      </button>
      <span id={`${id}-e`} className="text-rose-700 dark:text-rose-300">
        {problem ? `✕ ${problem}` : ""}
      </span>
    </div>
  );
}

/** The entries of one server; `onChange` gets undefined when the last one is removed. */
export function McpSecrets({
  kind,
  server,
  entries,
  onChange,
}: {
  kind: Kind;
  server: string;
  entries: Entries | undefined;
  onChange: (next: Entries | undefined) => void;
}) {
  const current = entries ?? {};
  const names = Object.keys(current);
  const write = (next: Entries) => onChange(Object.keys(next).length > 0 ? next : undefined);
  // A rename keeps the entry's place, so the list does not jump while you edit it.
  const replace = (old: string, name: string, value: string) =>
    write(Object.fromEntries(Object.entries(current).map(([n, v]) => (n === old ? [name, value] : [n, v]))));
  return (
    <fieldset className="space-y-2" data-testid={`mcp-secrets-${server}`}>
      <legend className="text-xs font-medium">{WORDS[kind].title}</legend>
      <p className={help}>Stored encrypted. A stored value is never shown again: type a new one to replace it.</p>
      {names.length === 0 ? (
        <p className={help}>{WORDS[kind].none}</p>
      ) : (
        <ul className="space-y-2">
          {names.map((name) => (
            <SecretRow
              key={name}
              kind={kind}
              server={server}
              name={name}
              value={current[name] ?? ""}
              taken={names.filter((n) => n !== name)}
              onSet={(next, value) => replace(name, next, value)}
              onRemove={() => write(Object.fromEntries(Object.entries(current).filter(([n]) => n !== name)))}
            />
          ))}
        </ul>
      )}
      <AddSecret kind={kind} taken={names} onAdd={(name, value) => write({ ...current, [name]: value })} />
    </fieldset>
  );
}
