"use client";
// One agent of the policy document as a form: what it is called and how it talks, which model, which tools (the same
// lists, groups and wildcards as everywhere), the starter prompts of an empty chat, and who may chat as it.
import { AgentConfigSchema, ROLES, type AgentConfig, type ToolMeta } from "@/lib/policy";
import { button, input, LinesField, readOptional, TextField, ToolListField, viaSchema } from "./field-controls";
import { ProfileSelect } from "./key-pickers";
import { ProviderRules } from "./provider-rules";
import type { AdminTeam, AdminUser } from "./types";

const shape = AgentConfigSchema.shape;
type ToolKey = "allow" | "alsoAllow" | "deny";

export function AgentCard({
  id,
  agent,
  profiles,
  tools,
  teams,
  users,
  onChange,
  onRemove,
  onShow,
}: {
  id: string;
  agent: AgentConfig;
  profiles: readonly string[];
  tools: readonly ToolMeta[];
  teams: readonly AdminTeam[];
  users: readonly AdminUser[];
  onChange: (next: AgentConfig) => void;
  onRemove: () => void;
  onShow?: () => void;
}) {
  const set = <K extends keyof AgentConfig>(key: K, value: AgentConfig[K] | undefined) => {
    const next = structuredClone(agent);
    if (value === undefined) delete next[key];
    else next[key] = value;
    onChange(next);
  };
  const setTools = (
    key: ToolKey | "profile" | "byProvider",
    value: AgentConfig["tools"][ToolKey | "profile" | "byProvider"],
  ) => {
    const next = structuredClone(agent.tools);
    if (value === undefined) delete next[key];
    else (next as Record<string, unknown>)[key] = value;
    set("tools", next);
  };
  const usableBy = agent.usableBy ?? {};
  const setUsable = (key: "roles" | "teams" | "users", list: string[]) => {
    const next: Record<string, string[]> = { ...usableBy };
    if (list.length > 0) next[key] = list;
    else delete next[key];
    set("usableBy", Object.keys(next).length > 0 ? (next as AgentConfig["usableBy"]) : undefined);
  };
  const toggle = (key: "roles" | "teams", value: string, on: boolean) => {
    const current = new Set<string>(usableBy[key] ?? []);
    if (on) current.add(value);
    else current.delete(value);
    setUsable(key, [...current]);
  };
  const teamIds = [...new Set([...teams.map((t) => t.id), ...(usableBy.teams ?? [])])].sort();
  const unknownUsers = (usableBy.users ?? []).filter(
    (u) => !users.some((x) => x.id === u || x.email.toLowerCase() === u.toLowerCase()),
  );
  const heading = `agent-${id}-heading`;

  return (
    <section
      aria-labelledby={heading}
      className="space-y-3 rounded-lg border border-slate-200 p-3 dark:border-slate-800"
      data-testid={`agent-form-${id}`}
    >
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h4 id={heading} className="text-sm font-semibold">
          Agent <code className="font-mono">{id}</code>
        </h4>
        <div className="flex gap-2">
          {onShow && (
            <button type="button" className={button} onClick={onShow}>
              Show {id} in the matrix
            </button>
          )}
          <button type="button" className={`${button} text-rose-700 dark:text-rose-300`} onClick={onRemove}>
            Remove {id}
          </button>
        </div>
      </div>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          label={`Display name of ${id}`}
          value={agent.name}
          show={String}
          read={viaSchema(shape.name)}
          commitOn="blur"
          className="w-full"
          onCommit={(v) => set("name", v)}
          description="Shown in the agent picker of a chat."
        />
        <TextField
          label={`Model of ${id}`}
          value={agent.model}
          show={(v) => v ?? ""}
          read={readOptional(shape.model)}
          commitOn="blur"
          className="w-full"
          placeholder="the default model"
          onCommit={(v) => set("model", v)}
          description="A configured model id (MODELS); checked when you save. Empty: the default model."
        />
      </div>
      <TextField
        label={`Persona of ${id}`}
        value={agent.persona}
        show={(v) => v ?? ""}
        read={readOptional(shape.persona)}
        commitOn="blur"
        multiline
        className="w-full"
        onCommit={(v) => set("persona", v)}
        description="Instructions the agent gets before every chat (its system prompt)."
      />
      <fieldset className="space-y-2">
        <legend className="text-xs font-semibold">
          Tools this agent may use (they can only narrow what the other layers allow)
        </legend>
        <div className="grid gap-3 sm:grid-cols-2">
          <ProfileSelect
            label={`Profile of ${id}`}
            value={agent.tools.profile}
            custom={profiles}
            onChange={(p) => setTools("profile", p)}
          />
          <ToolListField
            label={`Only allow (${id})`}
            value={agent.tools.allow}
            tools={tools}
            onCommit={(l) => setTools("allow", l)}
            description="Empty: every tool the other layers allow."
          />
          <ToolListField
            label={`Also allow (${id})`}
            value={agent.tools.alsoAllow}
            tools={tools}
            onCommit={(l) => setTools("alsoAllow", l)}
            description="Added to the profile's or allow list's tools."
          />
          <ToolListField
            label={`Never allow (${id})`}
            value={agent.tools.deny}
            tools={tools}
            onCommit={(l) => setTools("deny", l)}
            description="Beats every allow. Names, group:fs style groups or x* wildcards."
          />
        </div>
      </fieldset>
      <fieldset className="space-y-2" data-testid={`agent-providers-${id}`}>
        <legend className="text-xs font-semibold">
          Provider rules of {id} (when a given provider or model runs its chat)
        </legend>
        <ProviderRules
          rules={agent.tools.byProvider}
          profiles={profiles}
          tools={tools}
          owner={id}
          onChange={(rules) => setTools("byProvider", rules)}
        />
      </fieldset>
      <LinesField
        label={`Starter prompts of ${id}`}
        value={agent.starters}
        schema={shape.starters}
        onCommit={(l) => set("starters", l)}
        description="One per line, up to 8 of up to 300 characters: offered in an empty chat."
      />
      <fieldset className="space-y-1">
        <legend className="text-xs font-semibold">Who may chat as {id}</legend>
        <p className="text-xs text-slate-600 dark:text-slate-400">
          Admins always may. Nobody else may unless named here by role, team or person.
        </p>
        <div className="flex flex-wrap gap-3 text-xs">
          {ROLES.filter((r) => r !== "admin").map((role) => (
            <label key={role} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={usableBy.roles?.includes(role) ?? false}
                onChange={(e) => toggle("roles", role, e.target.checked)}
              />
              every {role}
            </label>
          ))}
          {teamIds.map((team) => (
            <label key={team} className="flex items-center gap-1">
              <input
                type="checkbox"
                checked={usableBy.teams?.includes(team) ?? false}
                onChange={(e) => toggle("teams", team, e.target.checked)}
              />
              team {team}
            </label>
          ))}
        </div>
        <label className="flex flex-col gap-0.5 text-xs">
          <span className="font-medium">People who may chat as {id} (e-mail addresses)</span>
          <select
            className={input}
            value=""
            onChange={(e) =>
              e.target.value && setUsable("users", [...new Set([...(usableBy.users ?? []), e.target.value])])
            }
          >
            <option value="">add a person…</option>
            {users
              .filter(
                (u) => !(usableBy.users ?? []).some((x) => x === u.id || x.toLowerCase() === u.email.toLowerCase()),
              )
              .map((u) => (
                <option key={u.id} value={u.email}>
                  {u.email}
                </option>
              ))}
          </select>
        </label>
        {(usableBy.users ?? []).length > 0 && (
          <ul className="flex flex-wrap gap-2 text-xs">
            {(usableBy.users ?? []).map((u) => (
              <li key={u} className="flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 dark:bg-slate-800">
                {users.find((x) => x.id === u)?.email ?? u}
                <button
                  type="button"
                  aria-label={`${id}: remove ${u}`}
                  className="px-1"
                  onClick={() =>
                    setUsable(
                      "users",
                      (usableBy.users ?? []).filter((x) => x !== u),
                    )
                  }
                >
                  ✕
                </button>
              </li>
            ))}
          </ul>
        )}
        {unknownUsers.length > 0 && (
          <p className="text-xs text-amber-800 dark:text-amber-300">
            ⚠ {unknownUsers.join(", ")}: no such account; the entry matches nobody.
          </p>
        )}
      </fieldset>
    </section>
  );
}
