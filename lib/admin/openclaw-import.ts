// Maps the `tools` section of an OpenClaw-style config (and its per-agent and per-group tool policies) into
// Toolgate's policy document. Whatever has no counterpart is listed in the report instead of being dropped
// silently: an import that quietly loses a deny rule would widen access.
import type { PolicyDocument, PolicyDocumentInput } from "@/lib/policy";

export type ImportNote = { path: string; message: string };
export type ImportReport = { mapped: ImportNote[]; unmapped: ImportNote[] };
export type ImportResult = { document: PolicyDocumentInput; report: ImportReport };

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const LIST_KEYS = ["allow", "alsoAllow", "deny"] as const;

class Mapper {
  readonly report: ImportReport = { mapped: [], unmapped: [] };

  skip(path: string, message: string) {
    this.report.unmapped.push({ path, message });
  }

  note(path: string, message: string) {
    this.report.mapped.push({ path, message });
  }

  list(value: unknown, path: string): string[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.skip(path, "expected a list of tool names");
      return undefined;
    }
    const names = value.filter((entry): entry is string => typeof entry === "string" && entry.trim() !== "");
    if (names.length !== value.length) this.skip(path, "entries that are not non-empty strings were left out");
    return names;
  }

  /** allow/alsoAllow/deny (+ profile when `withProfile`); reports every other key under `path`. */
  policy(raw: unknown, path: string, options: { withProfile?: boolean; extra?: readonly string[] } = {}): Json | undefined {
    if (raw === undefined) return undefined;
    if (!isRecord(raw)) {
      this.skip(path, "expected an object");
      return undefined;
    }
    const out: Json = {};
    for (const key of LIST_KEYS) {
      const list = this.list(raw[key], `${path}.${key}`);
      if (list) out[key] = list;
    }
    if (options.withProfile && raw.profile !== undefined) {
      if (typeof raw.profile === "string" && raw.profile.trim() !== "") out.profile = raw.profile.trim();
      else this.skip(`${path}.profile`, "expected a profile name");
    }
    const known = new Set<string>([...LIST_KEYS, ...(options.withProfile ? ["profile"] : []), ...(options.extra ?? [])]);
    for (const key of Object.keys(raw)) if (!known.has(key)) this.skip(`${path}.${key}`, "no counterpart in Toolgate's policy document");
    return out;
  }

  scope(raw: unknown, path: string, extra: readonly string[] = []): Json | undefined {
    const out = this.policy(raw, path, { withProfile: true, extra: ["byProvider", ...extra] });
    if (!out || !isRecord(raw) || raw.byProvider === undefined) return out;
    if (!isRecord(raw.byProvider)) {
      this.skip(`${path}.byProvider`, "expected an object keyed by provider or provider/model");
      return out;
    }
    const byProvider: Json = {};
    for (const [key, value] of Object.entries(raw.byProvider)) {
      const mapped = this.policy(value, `${path}.byProvider.${key}`, { withProfile: true });
      if (mapped) byProvider[key] = mapped;
    }
    out.byProvider = byProvider;
    return out;
  }
}

function agentModel(raw: unknown): string | undefined {
  if (typeof raw === "string" && raw.trim() !== "") return raw.trim();
  if (isRecord(raw) && typeof raw.primary === "string") return raw.primary;
  return undefined;
}

function mapAgents(m: Mapper, raw: unknown, agents: Json): void {
  if (raw === undefined) return;
  if (!isRecord(raw)) return m.skip("agents", "expected an object");
  const entries: Array<[string, unknown, string]> = [];
  if (Array.isArray(raw.list)) {
    raw.list.forEach((agent, i) => {
      const id = isRecord(agent) && typeof agent.id === "string" ? agent.id : undefined;
      if (!id) m.skip(`agents.list.${i}`, "an agent without an id cannot be mapped");
      else entries.push([id, agent, `agents.list.${i}`]);
    });
  }
  for (const [key, value] of Object.entries(raw)) {
    if (key === "list") continue;
    if (key === "defaults") m.skip("agents.defaults", "agent defaults have no counterpart; set the global tools section instead");
    else entries.push([key, value, `agents.${key}`]);
  }
  for (const [id, agent, path] of entries) {
    if (!isRecord(agent)) {
      m.skip(path, "expected an object");
      continue;
    }
    const tools = m.scope(agent.tools ?? {}, `${path}.tools`) ?? {};
    const model = agentModel(agent.model);
    agents[id] = { name: typeof agent.name === "string" && agent.name.trim() ? agent.name : id, ...(model ? { model } : {}), tools };
    for (const key of Object.keys(agent)) {
      if (!["id", "name", "model", "tools"].includes(key)) m.skip(`${path}.${key}`, "only name, model and tools of an agent are imported");
    }
    m.note(path, `agent "${id}"`);
  }
}

function mapChannels(m: Mapper, raw: unknown, teams: Json): void {
  if (raw === undefined) return;
  if (!isRecord(raw)) return m.skip("channels", "expected an object");
  for (const [channel, config] of Object.entries(raw)) {
    const groups = isRecord(config) ? config.groups : undefined;
    if (!isRecord(groups)) {
      m.skip(`channels.${channel}`, "only per-group tool policies of a channel are imported");
      continue;
    }
    for (const [groupId, group] of Object.entries(groups)) {
      const path = `channels.${channel}.groups.${groupId}`;
      const tools = isRecord(group) ? m.policy(group.tools, `${path}.tools`) : undefined;
      if (!tools) {
        m.skip(path, "a group without a tools policy has nothing to import");
        continue;
      }
      // Chat groups are Toolgate's teams (the group layer's unit).
      const teamId = `${channel}:${groupId}`;
      teams[teamId] = tools;
      m.note(path, `team "${teamId}" (add its members in /admin/users)`);
    }
  }
}

/** `input` is a whole OpenClaw config ({ tools, agents, channels }) or just its tools section. */
export function importOpenClawConfig(input: unknown, base: PolicyDocument): ImportResult {
  const m = new Mapper();
  const document = structuredClone(base) as unknown as Json;
  if (!isRecord(input)) {
    m.skip("(root)", "expected a JSON object");
    return { document: document as PolicyDocumentInput, report: m.report };
  }
  const isWholeConfig = "tools" in input || "agents" in input || "channels" in input;
  const tools = isWholeConfig ? input.tools : input;
  if (isWholeConfig) {
    for (const key of Object.keys(input)) if (!["tools", "agents", "channels"].includes(key)) m.skip(key, "not a tool policy setting");
  }
  if (tools !== undefined) {
    const prefix = isWholeConfig ? "tools" : "(tools)";
    const section = m.scope(tools, prefix, ["sandbox", "subagents"]);
    if (section) {
      document.tools = section;
      m.note(prefix, "global tools policy (profile, allow, alsoAllow, deny, byProvider)");
    }
    const raw = isRecord(tools) ? tools : {};
    if (raw.sandbox !== undefined) {
      const sandbox = isRecord(raw.sandbox) ? raw.sandbox : {};
      const policy = m.policy(sandbox.tools, `${prefix}.sandbox.tools`);
      if (policy) {
        document.sandbox = { ...(document.sandbox as Json), tools: policy };
        m.note(`${prefix}.sandbox.tools`, "sandbox layer");
      }
      for (const key of Object.keys(sandbox)) if (key !== "tools") m.skip(`${prefix}.sandbox.${key}`, "only sandbox.tools is imported");
    }
    if (raw.subagents !== undefined) {
      const subagents = isRecord(raw.subagents) ? raw.subagents : {};
      const policy = m.policy(subagents.tools, `${prefix}.subagents.tools`);
      const next: Json = { ...(document.subagents as Json) };
      if (policy) next.tools = policy;
      if (typeof subagents.maxSpawnDepth === "number") next.maxSpawnDepth = subagents.maxSpawnDepth;
      document.subagents = next;
      if (policy) m.note(`${prefix}.subagents.tools`, "subagent layer");
      for (const key of Object.keys(subagents)) if (!["tools", "maxSpawnDepth"].includes(key)) m.skip(`${prefix}.subagents.${key}`, "only subagents.tools and maxSpawnDepth are imported");
    }
  }
  if (isWholeConfig) {
    const agents: Json = { ...(document.agents as Json) };
    mapAgents(m, input.agents, agents);
    document.agents = agents;
    const teams: Json = { ...(document.teams as Json) };
    mapChannels(m, input.channels, teams);
    document.teams = teams;
  }
  return { document: document as PolicyDocumentInput, report: m.report };
}
