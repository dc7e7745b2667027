"use client";
// Structured controls for the most used settings. Each edit rewrites the draft document (never the saved one).
import { useState } from "react";
import { EXEC_ASK_MODES, EXEC_FALLBACK_LEVELS, EXEC_SECURITY_LEVELS, type PolicyDocument } from "@/lib/policy";
import { ListInput } from "./list-input";

const box = "space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800";
const select = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-700 dark:bg-slate-900";

function LimitInput({ label, value, onCommit }: { label: string; value: number; onCommit: (n: number) => void }) {
  const [text, setText] = useState(String(value));
  const [last, setLast] = useState(value);
  const [note, setNote] = useState<string>();
  if (value !== last) {
    setLast(value);
    setText(String(value));
  }
  const commit = () => {
    const n = Number(text);
    // A limit is never replaced by an empty or invalid value: keep the previous one and say so.
    if (text.trim() === "" || !Number.isInteger(n) || n <= 0) {
      setText(String(value));
      setNote(`a limit needs a positive whole number; kept ${value}`);
      return;
    }
    setNote(undefined);
    onCommit(n);
  };
  return (
    <label className="flex flex-col text-xs">
      {label}
      <input className={`${select} w-32`} inputMode="numeric" value={text} onChange={(e) => setText(e.target.value)} onBlur={commit} onKeyDown={(e) => e.key === "Enter" && commit()} />
      {note && <span role="alert" className="text-rose-700 dark:text-rose-300">{note}</span>}
    </label>
  );
}

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (v: boolean) => void }) {
  return (
    <label className="flex items-center gap-1.5 text-xs">
      <input type="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      {label}
    </label>
  );
}

export function SettingsControls({ document, onChange }: { document: PolicyDocument; onChange: (next: PolicyDocument) => void }) {
  const edit = (mutate: (d: PolicyDocument) => void) => {
    const next = structuredClone(document);
    mutate(next);
    onChange(next);
  };
  const setList = (key: "allow" | "alsoAllow" | "deny") => (list: string[] | undefined) =>
    edit((d) => {
      if (list) d.tools[key] = list;
      else delete d.tools[key];
    });
  const { system, exec } = document;
  return (
    <div className="grid gap-3 md:grid-cols-2">
      <section className={box} aria-labelledby="global-lists">
        <h3 id="global-lists" className="text-sm font-semibold">Global allow / deny</h3>
        <ListInput label="Allow (empty = all)" value={document.tools.allow} onCommit={setList("allow")} />
        <ListInput label="Also allow" value={document.tools.alsoAllow} onCommit={setList("alsoAllow")} />
        <ListInput label="Deny (beats allow)" value={document.tools.deny} onCommit={setList("deny")} help="Names, group:fs style groups, or x* wildcards." />
        <ListInput label="Ask rules (need an owner's approval)" value={document.askRules} onCommit={(list) => edit((d) => void (d.askRules = list ?? []))} />
      </section>
      <section className={box} aria-labelledby="system-settings">
        <h3 id="system-settings" className="text-sm font-semibold">System tool settings</h3>
        <Toggle label="File tools (fs) on" checked={system.fs.enabled} onChange={(v) => edit((d) => void (d.system.fs.enabled = v))} />
        <div className="flex flex-wrap gap-3">
          <LimitInput label="fs maxReadBytes" value={system.fs.maxReadBytes} onCommit={(n) => edit((d) => void (d.system.fs.maxReadBytes = n))} />
          <LimitInput label="fs maxWriteBytes" value={system.fs.maxWriteBytes} onCommit={(n) => edit((d) => void (d.system.fs.maxWriteBytes = n))} />
        </div>
        <Toggle label="Exec on" checked={system.exec.enabled} onChange={(v) => edit((d) => void (d.system.exec.enabled = v))} />
        <Toggle label="Web on" checked={system.web.enabled} onChange={(v) => edit((d) => void (d.system.web.enabled = v))} />
        <Toggle label="MCP on" checked={system.mcp.enabled} onChange={(v) => edit((d) => void (d.system.mcp.enabled = v))} />
        <ListInput label="MCP allowed servers (empty = none)" value={system.mcp.allowedServers} onCommit={(list) => edit((d) => void (d.system.mcp.allowedServers = list ?? []))} />
      </section>
      <section className={`${box} md:col-span-2`} aria-labelledby="exec-settings">
        <h3 id="exec-settings" className="text-sm font-semibold">Exec approvals</h3>
        <div className="flex flex-wrap gap-3">
          <label className="flex flex-col text-xs">
            security
            <select className={select} value={exec.security} onChange={(e) => edit((d) => void (d.exec.security = e.target.value as typeof exec.security))}>
              {EXEC_SECURITY_LEVELS.map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
          <label className="flex flex-col text-xs">
            ask
            <select className={select} value={exec.ask} onChange={(e) => edit((d) => void (d.exec.ask = e.target.value as typeof exec.ask))}>
              {EXEC_ASK_MODES.map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
          <label className="flex flex-col text-xs">
            askFallback
            <select className={select} value={exec.askFallback} onChange={(e) => edit((d) => void (d.exec.askFallback = e.target.value as typeof exec.askFallback))}>
              {EXEC_FALLBACK_LEVELS.map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
        </div>
        <ListInput label="Allowlist (executable path globs)" value={exec.allowlist} onCommit={(list) => edit((d) => void (d.exec.allowlist = list ?? []))} />
        <ListInput label="Ask rules (sandbox mode: matching commands wait for an owner)" value={exec.askRules} onCommit={(list) => edit((d) => void (d.exec.askRules = list ?? []))} />
      </section>
    </div>
  );
}
