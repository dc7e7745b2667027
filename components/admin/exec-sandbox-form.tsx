"use client";
// Sandbox and exec settings as a form: how commands run (exec.security), when an owner is asked, what happens when
// no owner answers, the command rules, host execution, the resource limits (in seconds, KiB/MiB, percent) and who
// is always sandboxed. Network rules by domain are in network-rules-form.tsx. Each valid change rewrites the draft.
import { z } from "zod";
import type { ExecSettings, PolicyDocument } from "@/lib/policy";
import { ExecSettingsSchema } from "@/lib/policy/exec-approvals";
import type { ToolPolicySchema } from "@/lib/policy/document";
import { box, ByteField, Check, Choice, help, ListField, NumberField, SecondsField } from "./field-controls";
import { NetworkRulesForm } from "./network-rules-form";

const S = ExecSettingsSchema.shape;
const names = z.array(z.string().trim().min(1, "an entry cannot be empty"));

const SECURITY = [
  {
    value: "sandbox",
    label: "In the sandbox (recommended)",
    help: "every command runs isolated: only the workspace is writable and only the domains listed under Network are reachable. No owner is asked, except for the commands listed under “Always ask an owner” and for host execution.",
  },
  {
    value: "allowlist",
    label: "Only listed commands, on the server itself",
    help: "a command runs when every part of it is covered by a rule below, a grant or a safe filter program; otherwise “When to ask an owner” decides. In the JSON: allowlist.",
  },
  {
    value: "full",
    label: "Every command, on the server itself",
    help: "no checks at all. Only for a machine you trust every user of.",
  },
  { value: "deny", label: "No commands", help: "the exec tool refuses every command, for everyone." },
] as const;

const ASK = [
  {
    value: "on-miss",
    label: "When a command is not covered",
    help: "ask an owner about commands no rule covers (in the JSON: on-miss). In the sandbox: about the commands listed under “Always ask an owner”.",
  },
  { value: "always", label: "For every command", help: "every command waits for an owner's approval." },
  { value: "off", label: "Never", help: "nothing waits: a command that would need an owner is refused." },
] as const;

const FALLBACK = [
  { value: "deny", label: "Refuse the command", help: "the safe choice." },
  {
    value: "allowlist",
    label: "Run it only if the rules cover it",
    help: "as if “Only listed commands” were chosen and no owner could be asked.",
  },
  { value: "full", label: "Run it anyway", help: "an unanswered request runs: use with care." },
] as const;

export function ExecSandboxForm({
  document,
  onChange,
}: {
  document: PolicyDocument;
  onChange: (next: PolicyDocument) => void;
}) {
  const { exec, sandbox } = document;
  const setExec = (patch: Partial<ExecSettings>) =>
    onChange({ ...structuredClone(document), exec: { ...structuredClone(exec), ...patch } });
  const setSandbox = (patch: Partial<PolicyDocument["sandbox"]>) =>
    onChange({ ...structuredClone(document), sandbox: { ...structuredClone(sandbox), ...patch } });
  const onHost = exec.security === "allowlist" || exec.security === "full";
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <section className={box} aria-labelledby="exec-how">
        <h3 id="exec-how" className="text-sm font-semibold">
          How commands run
        </h3>
        <Choice
          legend="Where the exec tool runs commands"
          name="exec-security"
          value={exec.security}
          options={SECURITY}
          onChange={(security) => setExec({ security })}
        />
        <Choice
          legend="When to ask an owner"
          name="exec-ask"
          value={exec.ask}
          options={ASK}
          onChange={(ask) => setExec({ ask })}
        />
        <Choice
          legend="If no owner answers before the request expires"
          name="exec-fallback"
          value={exec.askFallback}
          options={FALLBACK}
          onChange={(askFallback) => setExec({ askFallback })}
          description={
            exec.security === "sandbox"
              ? "Not used in the sandbox: an unanswered request is always refused. (In the JSON: askFallback.)"
              : "In the JSON: askFallback."
          }
        />
      </section>
      <section className={box} aria-labelledby="exec-rules">
        <h3 id="exec-rules" className="text-sm font-semibold">
          Command rules
        </h3>
        <ListField
          label={`Commands that run without asking${onHost ? "" : " (used outside the sandbox)"}`}
          value={exec.allowlist}
          schema={S.allowlist}
          onCommit={(allowlist) => setExec({ allowlist })}
          description="The words a command starts with; “*” at the end allows any further arguments: git status *, ls *. A single word such as “make” means “make *”. In the JSON: allowlist."
        />
        <ListField
          label="Always ask an owner (sandbox)"
          value={exec.askRules}
          schema={S.askRules}
          onCommit={(askRules) => setExec({ askRules })}
          description="Commands with a part matching one of these rules (same form as above, e.g. git push *) wait for an owner's approval even in the sandbox."
        />
        <ListField
          label="Safe filter programs"
          value={exec.safeBins}
          schema={names}
          onCommit={(safeBins) => setExec({ safeBins })}
          description="Programs that only read their input (cut, head, wc…): allowed in a pipeline without a rule."
        />
        <ListField
          label="Agents whose commands run on the server, outside the sandbox"
          value={exec.host.agents}
          schema={names}
          onCommit={(agents) => setExec({ host: { ...exec.host, agents } })}
          description="Still never as root. Their commands are checked like “Only listed commands”."
        />
        <ListField
          label="Teams whose commands run on the server, outside the sandbox"
          value={exec.host.teams}
          schema={names}
          onCommit={(teams) => setExec({ host: { ...exec.host, teams } })}
        />
      </section>
      <section className={box} aria-labelledby="exec-limits">
        <h3 id="exec-limits" className="text-sm font-semibold">
          Limits
        </h3>
        <div className="flex flex-wrap gap-3">
          <SecondsField
            label="Time one command may run"
            value={exec.timeoutMs}
            schema={S.timeoutMs}
            onCommit={(timeoutMs) => setExec({ timeoutMs })}
          />
          <ByteField
            label="Output one command may return"
            value={exec.maxOutputBytes}
            schema={S.maxOutputBytes}
            onCommit={(maxOutputBytes) => setExec({ maxOutputBytes })}
          />
          <ByteField
            label="Largest file one command may write"
            value={exec.maxFileBytes}
            schema={S.maxFileBytes}
            onCommit={(maxFileBytes) => setExec({ maxFileBytes })}
          />
          <ByteField
            label="Disk space per workspace"
            value={exec.workspaceQuotaBytes}
            schema={S.workspaceQuotaBytes}
            onCommit={(workspaceQuotaBytes) => setExec({ workspaceQuotaBytes })}
          />
          <ByteField
            label="Memory per member (all commands)"
            value={exec.memberMemoryBytes}
            schema={S.memberMemoryBytes}
            onCommit={(memberMemoryBytes) => setExec({ memberMemoryBytes })}
            description="At least 16 MiB."
          />
          <NumberField
            label="Processes per member"
            value={exec.memberProcesses}
            schema={S.memberProcesses}
            onCommit={(memberProcesses) => setExec({ memberProcesses })}
            description="8 to 100,000."
          />
          <NumberField
            label="CPU per member"
            unit="% of one core"
            value={exec.memberCpuPercent}
            schema={S.memberCpuPercent}
            onCommit={(memberCpuPercent) => setExec({ memberCpuPercent })}
            description="5 to 10,000 (200 = two cores)."
          />
        </div>
        <p className={help}>Sizes are written with a unit: 512 KiB, 64 MiB, 2 GiB.</p>
      </section>
      <section className={box} aria-labelledby="sandbox-who">
        <h3 id="sandbox-who" className="text-sm font-semibold">
          Always sandboxed
        </h3>
        <p className={help}>
          Chats of these agents, teams or users run sandboxed even when nobody asks for it: the tools below then apply
          on top of everything else.
        </p>
        <ListField
          label="Agents"
          value={sandbox.sandboxed.agents}
          schema={names}
          onCommit={(agents) => setSandbox({ sandboxed: { ...sandbox.sandboxed, agents } })}
        />
        <ListField
          label="Teams"
          value={sandbox.sandboxed.teams}
          schema={names}
          onCommit={(teams) => setSandbox({ sandboxed: { ...sandbox.sandboxed, teams } })}
        />
        <ListField
          label="Users (ids)"
          value={sandbox.sandboxed.users}
          schema={names}
          onCommit={(users) => setSandbox({ sandboxed: { ...sandbox.sandboxed, users } })}
        />
        <ListField
          label="Tools allowed when sandboxed (empty: the built-in set)"
          value={sandbox.tools.allow ?? []}
          schema={names}
          onCommit={(allow) => setSandbox({ tools: toolPolicy(sandbox.tools, "allow", allow) })}
          description="Tool names, groups such as group:fs, or wildcards such as mcp__*."
        />
        <ListField
          label="Tools denied when sandboxed"
          value={sandbox.tools.deny ?? []}
          schema={names}
          onCommit={(deny) => setSandbox({ tools: toolPolicy(sandbox.tools, "deny", deny) })}
        />
        <Check
          label="Exec tool on (system switch)"
          checked={document.system.exec.enabled}
          onChange={(enabled) =>
            onChange({
              ...structuredClone(document),
              system: { ...structuredClone(document.system), exec: { enabled } },
            })
          }
          description="Off: the exec tool stops in every chat, whatever the settings above say."
        />
      </section>
      <div className="lg:col-span-2">
        <NetworkRulesForm network={exec.network} onChange={(network) => setExec({ network })} />
      </div>
    </div>
  );
}

/** An allow/deny list of a tool policy; an empty list is removed (absent and empty mean different things for allow). */
export function toolPolicy(
  policy: z.output<typeof ToolPolicySchema>,
  key: "allow" | "deny" | "alsoAllow",
  list: string[],
) {
  const next = { ...policy };
  if (list.length > 0) next[key] = list;
  else delete next[key];
  return next;
}
