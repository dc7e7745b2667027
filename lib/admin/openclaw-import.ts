// Maps an OpenClaw config (openclaw.json, JSON5) onto Toolgate's policy document, merged into the current one.
// Nothing is dropped silently: every key without a counterpart, every name that matches nothing here and every
// value that replaced one already in the document is in the report. Where OpenClaw's rule cannot be expressed
// exactly, the import errs on the strict side (a sender or group restriction applied more widely, never less) and
// says so. Shapes: tools (+ byProvider, toolsBySender, sandbox, subagents, exec), agents.entries.<id> and legacy
// agents.list[], channels.<channel>.groups|channels.<id> (+ "*" defaults and toolsBySender), mcp.servers.
import JSON5 from "json5";
import type { PolicyDocument, PolicyDocumentInput, ToolMeta } from "@/lib/policy";
import { AppError } from "@/lib/errors";
import { json5DepthExceeds, MAX_JSON_DEPTH } from "@/lib/json-depth";
import { mapChannels, mapExec, mapMcpServers } from "./openclaw-sections";
import { isRecord, Mapper, type ImportReport, type Json } from "./openclaw-mapper";

export type { ImportNote, ImportReport, Json } from "./openclaw-mapper";
export type ImportResult = { document: PolicyDocumentInput; report: ImportReport };

/**
 * JSON5 (comments, unquoted keys, trailing commas), as openclaw.json is written. Nesting is bounded before the
 * (recursive) parser runs; an upload goes through lib/admin/openclaw-parse.ts, which keeps large texts off the
 * serving thread.
 */
export function parseOpenClawText(text: string): unknown {
  if (json5DepthExceeds(text))
    throw new AppError("VALIDATION_FAILED", `the OpenClaw config nests deeper than ${MAX_JSON_DEPTH} levels`, {
      maxDepth: MAX_JSON_DEPTH,
    });
  try {
    return JSON5.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message.replace(/^JSON5: /, "") : String(error);
    throw new AppError("VALIDATION_FAILED", `the OpenClaw config is not valid JSON5: ${message}`);
  }
}

function mapAgents(m: Mapper, raw: unknown, document: Json): void {
  if (raw === undefined) return;
  if (!isRecord(raw)) return m.skip("agents", "expected an object");
  const agents: Json = { ...(document.agents as Json) };
  const sandbox = { ...(document.sandbox as Json) };
  const sandboxed = isRecord(sandbox.sandboxed) ? { ...sandbox.sandboxed } : {};
  const sandboxedAgents = new Set<string>(Array.isArray(sandboxed.agents) ? (sandboxed.agents as string[]) : []);
  const entries: Array<[string, unknown, string]> = [];
  if (isRecord(raw.entries))
    for (const [id, agent] of Object.entries(raw.entries)) entries.push([id, agent, `agents.entries.${id}`]);
  else if (raw.entries !== undefined) m.skip("agents.entries", "expected an object keyed by agent id");
  if (Array.isArray(raw.list)) {
    raw.list.forEach((agent, i) => {
      const id = isRecord(agent) && typeof agent.id === "string" ? agent.id : undefined;
      if (!id) m.skip(`agents.list.${i}`, "an agent without an id cannot be mapped");
      else entries.push([id, agent, `agents.list.${i}`]);
    });
  } else if (raw.list !== undefined) m.skip("agents.list", "expected a list of agents");
  for (const key of Object.keys(raw))
    if (!["entries", "list", "defaults"].includes(key))
      m.skip(`agents.${key}`, "not an agent setting Toolgate imports");
  const defaults = isRecord(raw.defaults) ? raw.defaults : {};
  const defaultMode = isRecord(defaults.sandbox) ? defaults.sandbox.mode : undefined;
  for (const key of Object.keys(defaults))
    if (key !== "sandbox")
      m.skip(`agents.defaults.${key}`, "agent defaults other than sandbox.mode have no counterpart");
  if (defaultMode === "non-main")
    m.skip(
      "agents.defaults.sandbox.mode",
      '"non-main" depends on OpenClaw session keys; mark agents, teams or users sandboxed in sandbox.sandboxed instead',
    );
  for (const [id, agent, path] of entries) {
    if (!isRecord(agent)) {
      m.skip(path, "expected an object");
      continue;
    }
    const toolsRaw = isRecord(agent.tools) ? agent.tools : {};
    const tools =
      m.scope(agent.tools ?? {}, `${path}.tools`, {
        profile: true,
        byProvider: true,
        extra: ["toolsBySender", "sandbox", "elevated", "exec", "loopDetection"],
      }) ?? {};
    m.senders(toolsRaw.toolsBySender, `${path}.tools.toolsBySender`, tools, undefined);
    for (const key of ["sandbox", "elevated", "exec", "loopDetection"]) {
      if (toolsRaw[key] !== undefined)
        m.skip(
          `${path}.tools.${key}`,
          key === "sandbox"
            ? "Toolgate has one sandbox tool policy (sandbox.tools), not one per agent"
            : "no per-agent counterpart",
        );
    }
    const previous = isRecord(agents[id]) ? (agents[id] as Json) : undefined;
    const model =
      typeof agent.model === "string"
        ? agent.model
        : isRecord(agent.model) && typeof agent.model.primary === "string"
          ? agent.model.primary
          : undefined;
    const name =
      typeof agent.name === "string" && agent.name.trim() ? agent.name : ((previous?.name as string | undefined) ?? id);
    agents[id] = {
      ...(previous ?? {}),
      name,
      ...(model ? { model } : {}),
      tools: m.merge(previous?.tools, tools, `agents.${id}.tools`),
    };
    const mode = isRecord(agent.sandbox) ? agent.sandbox.mode : undefined;
    if (mode === "all" || (mode === undefined && defaultMode === "all")) {
      sandboxedAgents.add(id);
      m.note(`${path}.sandbox`, `agent "${id}" runs sandboxed (sandbox.sandboxed.agents)`);
    } else if (mode === "non-main") m.skip(`${path}.sandbox.mode`, '"non-main" has no counterpart');
    for (const key of Object.keys(agent)) {
      if (!["id", "name", "model", "tools", "sandbox", "default"].includes(key))
        m.skip(`${path}.${key}`, "only name, model, tools and sandbox.mode of an agent are imported");
    }
    m.note(path, `agent "${id}"`);
  }
  document.agents = agents;
  document.sandbox = { ...sandbox, sandboxed: { ...sandboxed, agents: [...sandboxedAgents] } };
}

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** Drops keys that would reach an object's prototype when used as ids below (JSON5 parses "__proto__" as a key). */
function withoutForbiddenKeys(value: unknown, path: string, m: Mapper): unknown {
  if (Array.isArray(value)) return value.map((item, i) => withoutForbiddenKeys(item, `${path}.${i}`, m));
  if (!isRecord(value)) return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (FORBIDDEN_KEYS.has(key)) m.skip(`${path}.${key}`, "this key is refused");
    else
      Object.defineProperty(out, key, {
        value: withoutForbiddenKeys(inner, `${path}.${key}`, m),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/** `input` is a whole OpenClaw config or just its tools section; `tools` is the catalog names are checked against. */
export function importOpenClawConfig(raw: unknown, base: PolicyDocument, tools: readonly ToolMeta[]): ImportResult {
  const m = new Mapper(tools, base);
  const input = withoutForbiddenKeys(raw, "(root)", m);
  const document = structuredClone(base) as unknown as Json;
  if (!isRecord(input)) {
    m.skip("(root)", "expected an object");
    return { document: document as PolicyDocumentInput, report: m.report };
  }
  const isWholeConfig = ["tools", "agents", "channels", "mcp"].some((key) => key in input);
  if (isWholeConfig) {
    for (const key of Object.keys(input))
      if (!["tools", "agents", "channels", "mcp"].includes(key)) m.skip(key, "not a tool policy setting");
    // First: server ids make `<server>__<tool>` names resolvable everywhere else.
    mapMcpServers(m, input.mcp, document);
  }
  const toolsRaw = isWholeConfig ? input.tools : input;
  const prefix = isWholeConfig ? "tools" : "(tools)";
  if (toolsRaw !== undefined) {
    const raw = isRecord(toolsRaw) ? toolsRaw : {};
    const section = m.scope(toolsRaw, prefix, {
      profile: true,
      byProvider: true,
      extra: ["toolsBySender", "sandbox", "subagents", "exec", "elevated", "web", "media", "loopDetection", "codeMode"],
    });
    if (section) {
      const senders: Json = { ...(document.senders as Json) };
      m.senders(raw.toolsBySender, `${prefix}.toolsBySender`, section, senders);
      document.senders = senders;
      document.tools = m.merge(document.tools, section, "tools");
      m.note(prefix, "global tools policy (profile, allow, alsoAllow, deny, byProvider)");
    }
    if (raw.sandbox !== undefined) {
      const sandbox = isRecord(raw.sandbox) ? raw.sandbox : {};
      const policy = m.scope(sandbox.tools, `${prefix}.sandbox.tools`);
      if (policy)
        document.sandbox = {
          ...(document.sandbox as Json),
          tools: m.merge((document.sandbox as Json).tools, policy, "sandbox.tools"),
        };
      if (policy) m.note(`${prefix}.sandbox.tools`, "sandbox layer");
      for (const key of Object.keys(sandbox))
        if (key !== "tools") m.skip(`${prefix}.sandbox.${key}`, "only sandbox.tools is imported");
    }
    if (raw.subagents !== undefined) {
      const subagents = isRecord(raw.subagents) ? raw.subagents : {};
      const policy = m.scope(subagents.tools, `${prefix}.subagents.tools`);
      const next: Json = { ...(document.subagents as Json) };
      if (policy) next.tools = m.merge(next.tools, policy, "subagents.tools");
      if (typeof subagents.maxSpawnDepth === "number") next.maxSpawnDepth = subagents.maxSpawnDepth;
      document.subagents = next;
      if (policy) m.note(`${prefix}.subagents.tools`, "subagent layer");
      for (const key of Object.keys(subagents))
        if (!["tools", "maxSpawnDepth"].includes(key))
          m.skip(`${prefix}.subagents.${key}`, "only subagents.tools and maxSpawnDepth are imported");
    }
    mapExec(m, raw.exec, `${prefix}.exec`, document);
    for (const key of ["elevated", "web", "media", "loopDetection", "codeMode"]) {
      if (raw[key] !== undefined) m.skip(`${prefix}.${key}`, "no counterpart in Toolgate's policy document");
    }
  }
  if (isWholeConfig) {
    mapAgents(m, input.agents, document);
    mapChannels(m, input.channels, document);
  }
  return { document: document as PolicyDocumentInput, report: m.report };
}
