"use client";
// Structured controls for the most used settings. Each edit rewrites the draft document (never the saved one).
import { useState } from "react";
import {
  applySystemToolSettingsPatch,
  formatByteSize,
  parseByteSize,
  type PolicyDocument,
  type SystemToolSettingsPatch,
} from "@/lib/policy";
import { ListInput } from "./list-input";

const box = "space-y-2 rounded-lg border border-slate-200 p-3 dark:border-slate-800";
const select = "rounded-md border border-slate-300 bg-white px-2 py-1 text-xs dark:border-slate-700 dark:bg-slate-900";

// Byte limits are shown and typed with units ("512 KiB"); the exact byte count is in the tooltip.
function LimitInput({ label, value, onCommit }: { label: string; value: number; onCommit: (n: number) => void }) {
  const [text, setText] = useState(formatByteSize(value));
  const [last, setLast] = useState(value);
  const [note, setNote] = useState<string>();
  if (value !== last) {
    setLast(value);
    setText(formatByteSize(value));
  }
  const commit = () => {
    const parsed = parseByteSize(text);
    // A limit is never replaced by an empty or invalid value: keep the previous one and say so.
    if (!parsed.ok) {
      setText(formatByteSize(value));
      setNote(`${parsed.reason}; kept ${formatByteSize(value)}`);
      return;
    }
    setNote(undefined);
    setText(formatByteSize(parsed.bytes));
    onCommit(parsed.bytes);
  };
  return (
    <label className="flex flex-col text-xs">
      {label}
      <input
        className={`${select} w-32`}
        title={`${value.toLocaleString("en")} bytes`}
        value={text}
        onChange={(e) => setText(e.target.value)}
        onBlur={commit}
        onKeyDown={(e) => e.key === "Enter" && commit()}
      />
      {note && (
        <span role="alert" className="text-rose-700 dark:text-rose-300">
          {note}
        </span>
      )}
    </label>
  );
}

function Toggle({
  label,
  checked,
  onChange,
  describedBy,
}: {
  label: string;
  checked: boolean;
  onChange: (v: boolean) => void;
  describedBy?: string;
}) {
  return (
    <label className="flex items-center gap-1.5 text-xs">
      <input
        type="checkbox"
        checked={checked}
        onChange={(e) => onChange(e.target.checked)}
        aria-describedby={describedBy}
      />
      {label}
    </label>
  );
}

/**
 * Every edit of the system tool settings goes through the save semantics of system-tool-policy-story.md: a
 * field-level merge in which an unset value keeps the stored one (never a fallback to a smaller internal default).
 */
export function withSystemSettings(document: PolicyDocument, patch: SystemToolSettingsPatch): PolicyDocument {
  return { ...structuredClone(document), system: applySystemToolSettingsPatch(document.system, patch) };
}

export function SettingsControls({
  document,
  onChange,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
}) {
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
  const setSystem = (patch: SystemToolSettingsPatch) => onChange(withSystemSettings(document, patch));
  const { system } = document;
  return (
    <div className="grid gap-3 md:grid-cols-2">
      <section className={box} aria-labelledby="global-lists">
        <h3 id="global-lists" className="text-sm font-semibold">
          Global allow / deny
        </h3>
        <ListInput label="Allow (empty = all)" value={document.tools.allow} onCommit={setList("allow")} />
        <ListInput label="Also allow" value={document.tools.alsoAllow} onCommit={setList("alsoAllow")} />
        <ListInput
          label="Deny (beats allow)"
          value={document.tools.deny}
          onCommit={setList("deny")}
          help="Names, group:fs style groups, or x* wildcards."
        />
      </section>
      <section className={box} aria-labelledby="system-settings">
        <h3 id="system-settings" className="text-sm font-semibold">
          System tool settings
        </h3>
        <Toggle
          label="File tools (fs) on"
          checked={system.fs.enabled}
          onChange={(v) => setSystem({ fs: { enabled: v } })}
          describedBy="fs-effect"
        />
        <p id="fs-effect" className="text-xs text-slate-600 dark:text-slate-400">
          Off: read, write, edit and apply_patch stop in every chat, for every agent and mode. ask_user keeps working.
        </p>
        <div className="flex flex-wrap gap-3">
          <LimitInput
            label="Max read size (fs)"
            value={system.fs.maxReadBytes}
            onCommit={(n) => setSystem({ fs: { maxReadBytes: n } })}
          />
          <LimitInput
            label="Max write size (fs)"
            value={system.fs.maxWriteBytes}
            onCommit={(n) => setSystem({ fs: { maxWriteBytes: n } })}
          />
        </div>
        <Toggle label="Exec on" checked={system.exec.enabled} onChange={(v) => setSystem({ exec: { enabled: v } })} />
        <Toggle label="Web on" checked={system.web.enabled} onChange={(v) => setSystem({ web: { enabled: v } })} />
        <Toggle label="MCP on" checked={system.mcp.enabled} onChange={(v) => setSystem({ mcp: { enabled: v } })} />
        <ListInput
          label="MCP allowed servers (empty = none)"
          value={system.mcp.allowedServers}
          onCommit={(list) => setSystem({ mcp: { allowedServers: list ?? [] } })}
        />
      </section>
    </div>
  );
}
