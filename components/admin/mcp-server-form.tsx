"use client";
// MCP servers in the policy document as forms: each server's modes, timeout and approval switches, and a form to
// add one (id, a command started in the sandbox or a URL, modes, timeout), checked with McpServerConfigSchema and,
// among the others, McpServersSchema (duplicate ids) as you type. Environment variables and headers are write-only
// (mcp-secrets.tsx). The live state of each server is on the MCP servers page.
import { useId } from "react";
import { TOOL_MODES, type McpServerConfig, type PolicyDocument, type ToolMode } from "@/lib/policy";
import { DEFAULT_MCP_TIMEOUT_MS, McpServerConfigSchema, McpServersSchema } from "@/lib/policy/mcp-servers";
import { box, button, Check, help, input, SecondsField } from "./field-controls";
import { issuesOfResult, ItemInput, useItemForm } from "./item-form";
import { McpSecrets } from "./mcp-secrets";

const MODE_LABELS: Record<ToolMode, string> = { chat_safe: "chat (chat_safe)", coding: "coding" };

function ModeChecks({
  legend,
  value,
  onChange,
}: {
  legend: string;
  value: readonly ToolMode[];
  onChange: (modes: ToolMode[]) => void;
}) {
  return (
    <fieldset className="text-xs">
      <legend className="font-medium">{legend}</legend>
      <div className="flex flex-wrap gap-x-3">
        {TOOL_MODES.map((mode) => (
          <label key={mode} className="flex items-center gap-1">
            <input
              type="checkbox"
              checked={value.includes(mode)}
              onChange={(e) =>
                onChange(
                  e.target.checked
                    ? TOOL_MODES.filter((m) => m === mode || value.includes(m))
                    : value.filter((m) => m !== mode),
                )
              }
            />
            {MODE_LABELS[mode]}
          </label>
        ))}
      </div>
      {value.length === 0 && <p className={help}>No mode: its tools are available nowhere.</p>}
    </fieldset>
  );
}

type NewForm = {
  id: string;
  type: "stdio" | "http";
  command: string;
  args: string;
  url: string;
  network: boolean;
  modes: ToolMode[];
  timeout: string;
};
const EMPTY: NewForm = {
  id: "",
  type: "stdio",
  command: "",
  args: "",
  url: "",
  network: false,
  modes: ["coding"],
  timeout: String(DEFAULT_MCP_TIMEOUT_MS / 1000),
};

function buildNew(f: NewForm) {
  const seconds = f.timeout.trim();
  const transport =
    f.type === "stdio"
      ? {
          type: "stdio" as const,
          command: f.command,
          args: f.args
            .split("\n")
            .map((a) => a.trim())
            .filter(Boolean),
          sandbox: { network: f.network, readOnlyPaths: [], writablePaths: [] },
        }
      : { type: "http" as const, url: f.url.trim() };
  return {
    id: f.id.trim(),
    transport,
    allowedModes: f.modes,
    timeoutMs: /^\d+(\.\d+)?$/.test(seconds) ? Math.round(Number(seconds) * 1000) : seconds,
  };
}

function AddServer({
  servers,
  onAdd,
}: {
  servers: readonly McpServerConfig[];
  onAdd: (server: McpServerConfig, enable: boolean) => void;
}) {
  const argsId = useId();
  const item = useItemForm<NewForm & { enable: boolean }, McpServerConfig>({
    value: undefined,
    toForm: () => ({ ...EMPTY, enable: true }),
    build: buildNew as (f: NewForm & { enable: boolean }) => unknown,
    validate: (value) => {
      const one = McpServerConfigSchema.safeParse(value);
      const id = (value as { id: string }).id;
      // A taken id is said at once, whatever else is still missing.
      const taken = servers.some((s) => s.id === id)
        ? [{ path: "id", message: `duplicate MCP server id "${id}"` }]
        : [];
      // The schema counts milliseconds; the form speaks seconds.
      if (!one.success)
        return {
          ok: false,
          issues: [
            ...taken,
            ...issuesOfResult(one).map((i) =>
              i.path === "timeoutMs" ? { ...i, message: "a number of seconds from 0.1 to 600" } : i,
            ),
          ],
        };
      if (taken.length > 0) return { ok: false, issues: taken };
      const all = McpServersSchema.safeParse([...servers, one.data]);
      if (!all.success)
        return {
          ok: false,
          issues: all.error.issues.map((i) => ({ path: i.path.slice(1).map(String).join("."), message: i.message })),
        };
      return { ok: true, value: one.data };
    },
  });
  const { form } = item;
  const quiet = form.id.trim() === "";
  const issue = (path: string) => (quiet ? undefined : item.issueFor(path));
  return (
    <fieldset className="space-y-2 rounded-md border border-slate-200 p-2 dark:border-slate-800" data-testid="mcp-add">
      <legend className="px-1 text-xs font-semibold">Add a server</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        <ItemInput
          label="Id"
          value={form.id}
          onChange={(id) => item.set({ id })}
          issue={issue("id")}
          placeholder="e.g. files"
          description="Part of every tool name: mcp__<id>__<tool>."
        />
        <SecondsInput value={form.timeout} onChange={(timeout) => item.set({ timeout })} issue={issue("timeoutMs")} />
      </div>
      <fieldset className="text-xs">
        <legend className="font-medium">How Toolgate reaches it</legend>
        <label className="mr-3 inline-flex items-center gap-1">
          <input
            type="radio"
            name="mcp-type"
            checked={form.type === "stdio"}
            onChange={() => item.set({ type: "stdio" })}
          />{" "}
          Start a program (in the sandbox)
        </label>
        <label className="inline-flex items-center gap-1">
          <input
            type="radio"
            name="mcp-type"
            checked={form.type === "http"}
            onChange={() => item.set({ type: "http" })}
          />{" "}
          Connect to a URL
        </label>
      </fieldset>
      {form.type === "stdio" ? (
        <div className="grid gap-2 sm:grid-cols-2">
          <ItemInput
            label="Command"
            value={form.command}
            onChange={(command) => item.set({ command })}
            issue={issue("transport.command")}
            placeholder="e.g. npx or /usr/bin/node"
          />
          <div className="flex flex-col gap-0.5 text-xs">
            <label htmlFor={argsId} className="font-medium">
              Arguments, one per line
            </label>
            <textarea
              id={argsId}
              rows={3}
              className={`${input} font-mono`}
              value={form.args}
              onChange={(e) => item.set({ args: e.target.value })}
            />
          </div>
          <Check
            label="Let the program use the network"
            checked={form.network}
            onChange={(network) => item.set({ network })}
            description="Off by default: the program runs without network."
          />
        </div>
      ) : (
        <ItemInput
          label="URL"
          value={form.url}
          onChange={(url) => item.set({ url })}
          issue={issue("transport.url")}
          placeholder="https://mcp.example.com/mcp"
        />
      )}
      <ModeChecks
        legend="Modes its tools may be used in"
        value={form.modes}
        onChange={(modes) => item.set({ modes })}
      />
      <Check
        label="Turn it on now"
        checked={form.enable}
        onChange={(enable) => item.set({ enable })}
        description="Adds it to the allowed servers and switches MCP on (system settings); off: it is saved but not contacted."
      />
      <button
        type="button"
        className={button}
        disabled={!item.result.ok}
        onClick={() => {
          if (!item.result.ok) return;
          onAdd(item.result.value, form.enable);
          item.reset();
        }}
      >
        Add server
      </button>
      {!quiet && !item.result.ok && (
        <p className="text-xs text-rose-700 dark:text-rose-300">Fix the fields marked ✕ to add it.</p>
      )}
    </fieldset>
  );
}

function SecondsInput({ value, onChange, issue }: { value: string; onChange: (t: string) => void; issue?: string }) {
  return (
    <ItemInput
      label="Timeout per call (seconds)"
      value={value}
      onChange={onChange}
      issue={issue}
      className="w-24"
      description="0.1 to 600 seconds."
    />
  );
}

function withSecrets(
  transport: McpServerConfig["transport"],
  key: "env" | "headers",
  entries: Record<string, string> | undefined,
): McpServerConfig["transport"] {
  const next: Record<string, unknown> = { ...structuredClone(transport) };
  if (entries) next[key] = entries;
  else delete next[key];
  return next as McpServerConfig["transport"];
}

export function McpServerForm({
  document,
  onChange,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
}) {
  const servers = document.mcpServers;
  const setServer = (index: number, patch: Partial<McpServerConfig>) =>
    onChange({
      ...structuredClone(document),
      mcpServers: servers.map((s, i) => (i === index ? { ...structuredClone(s), ...patch } : s)),
    });
  const allowed = document.system.mcp.allowedServers;
  const setAllowed = (id: string, on: boolean) => {
    const next = structuredClone(document);
    next.system.mcp.allowedServers = on ? [...new Set([...allowed, id])] : allowed.filter((s) => s !== id);
    if (on) next.system.mcp.enabled = true;
    return next;
  };
  return (
    <section className={box} aria-labelledby="mcp-form">
      <h3 id="mcp-form" className="text-sm font-semibold">
        MCP servers
      </h3>
      <p className={help}>
        Tools of an MCP server join the matrix as mcp__&lt;id&gt;__&lt;tool&gt; once the server is on and has answered.
        MCP as a whole is {document.system.mcp.enabled ? "on" : "off"}.
      </p>
      {servers.length === 0 && <p className="text-xs">No server yet.</p>}
      {servers.map((server, index) => (
        <fieldset
          key={server.id}
          className="space-y-2 rounded-md border border-slate-200 p-2 dark:border-slate-800"
          data-testid={`mcp-form-${server.id}`}
        >
          <legend className="px-1 font-mono text-xs font-semibold">{server.id}</legend>
          <p className={help}>
            {server.transport.type === "stdio"
              ? `Program: ${[server.transport.command, ...server.transport.args].join(" ")}`
              : `URL: ${server.transport.url}`}
          </p>
          <Check
            label="On (in the allowed servers)"
            checked={allowed.includes(server.id) && document.system.mcp.enabled}
            onChange={(on) => onChange(setAllowed(server.id, on))}
          />
          <ModeChecks
            legend="Modes its tools may be used in"
            value={server.allowedModes}
            onChange={(allowedModes) => setServer(index, { allowedModes })}
          />
          <SecondsField
            label="Timeout per call"
            value={server.timeoutMs}
            schema={McpServerConfigSchema.shape.timeoutMs}
            onCommit={(timeoutMs) => setServer(index, { timeoutMs })}
          />
          {server.transport.type === "stdio" ? (
            <McpSecrets
              kind="env"
              server={server.id}
              entries={server.transport.env}
              onChange={(env) => setServer(index, { transport: withSecrets(server.transport, "env", env) })}
            />
          ) : (
            <McpSecrets
              kind="headers"
              server={server.id}
              entries={server.transport.headers}
              onChange={(headers) => setServer(index, { transport: withSecrets(server.transport, "headers", headers) })}
            />
          )}
          <Check
            label="Only owners may use its tools"
            checked={server.ownerOnly}
            onChange={(ownerOnly) => setServer(index, { ownerOnly })}
          />
          <Check
            label="Ask an owner before tools that may change something"
            checked={server.requireApprovalForDestructive}
            onChange={(requireApprovalForDestructive) => setServer(index, { requireApprovalForDestructive })}
            description="Tools the server does not mark as read-only wait for an owner's approval on every call."
          />
          <button
            type="button"
            className={button}
            onClick={() => {
              const next = setAllowed(server.id, false);
              next.mcpServers = next.mcpServers.filter((s) => s.id !== server.id);
              onChange(next);
            }}
          >
            Remove {server.id}
          </button>
        </fieldset>
      ))}
      <AddServer
        servers={servers}
        onAdd={(server, enable) => {
          const next = enable ? setAllowed(server.id, true) : structuredClone(document);
          next.mcpServers = [...next.mcpServers, server];
          onChange(next);
        }}
      />
    </section>
  );
}
