// Checks a draft document the way the engine will read it, before it is saved: unknown tool names in allow lists
// and plugin-only allow lists (warnings; the latter needs an explicit confirmation), unknown names in deny lists
// (errors that block a save unless overridden for that one save: a typo such as `exce` in a deny list silently
// denies nothing) and mode overrides that would loosen a tool (refused). Warnings come from resolveEffectiveToolPolicy itself, resolved for a set of contexts
// that makes every configured layer apply, so the editor flags exactly what the engine reports.
import {
  normalizeToolName,
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentIssue,
  type PolicyWarning,
  type ToolMeta,
} from "@/lib/policy";

export type UnknownDeny = { path: string; entries: string[]; message: string };

export type DraftCheck = {
  /** Blocking: schema issues and loosening mode overrides. */
  issues: PolicyDocumentIssue[];
  warnings: PolicyWarning[];
  /** Sources of plugin-only allow lists: saving them needs `confirmPluginOnly`. */
  pluginOnly: string[];
  /** Deny lists naming no tool, group, profile or matching wildcard: block a save unless `confirmUnknownDenies`. */
  unknownDenies: UnknownDeny[];
  document?: PolicyDocument;
};

/** Contexts that switch on every configured layer at least once. */
export function probeContexts(document: PolicyDocument): PolicyContext[] {
  const base: PolicyContext = {
    roles: ["member", "owner", "admin"],
    senderIsOwner: true,
    mode: "chat_safe",
    teamIds: Object.keys(document.teams),
    sandboxed: true,
    subagentDepth: 1,
  };
  const providers = new Set<string>(Object.keys(document.tools.byProvider ?? {}));
  for (const agent of Object.values(document.agents))
    for (const key of Object.keys(agent.tools.byProvider ?? {})) providers.add(key);
  const contexts: PolicyContext[] = [base];
  for (const agentId of Object.keys(document.agents)) contexts.push({ ...base, agentId });
  for (const senderId of Object.keys(document.senders)) contexts.push({ ...base, senderId });
  for (const key of providers) {
    const [provider, ...model] = key.split("/");
    const ctx = { ...base, provider, ...(model.length > 0 ? { model: model.join("/") } : {}) };
    contexts.push(ctx);
    for (const agentId of Object.keys(document.agents)) contexts.push({ ...ctx, agentId });
  }
  return contexts;
}

export function collectDocumentWarnings(document: PolicyDocument, tools: readonly ToolMeta[]): PolicyWarning[] {
  const seen = new Map<string, PolicyWarning>();
  for (const context of probeContexts(document)) {
    for (const warning of resolveEffectiveToolPolicy(context, { document, tools }).warnings) {
      // Context-specific notes (mode not granted, unknown agent) are not properties of the document.
      if (warning.code === "mode_not_granted" || warning.code === "invalid_mode" || warning.code === "unknown_agent")
        continue;
      seen.set(`${warning.code}|${warning.source ?? ""}|${warning.message}`, warning);
    }
  }
  return [...seen.values()];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Every `deny` array in the document with its dotted path (tools, byProvider, agents, teams, senders, profiles, sandbox, subagents). */
function denyLists(value: unknown, path: string[] = [], out: Array<{ path: string; list: string[] }> = []) {
  if (!isRecord(value)) return out;
  for (const [key, child] of Object.entries(value)) {
    if (key === "deny" && Array.isArray(child))
      out.push({ path: [...path, key].join("."), list: child.filter((e): e is string => typeof e === "string") });
    else if (isRecord(child)) denyLists(child, [...path, key], out);
  }
  return out;
}

/**
 * Deny entries the engine reports as naming nothing. "Unknown" is the engine's own verdict (its unknown_entry
 * warnings, which already leave out groups, profiles and wildcards that match a tool): whether a name matches is a
 * property of the name and the tool list, so a name the engine flags anywhere is unknown in every deny list.
 */
export function findUnknownDenies(document: PolicyDocument, warnings: readonly PolicyWarning[]): UnknownDeny[] {
  const unknown = new Set(
    warnings
      .filter((w) => w.code === "unknown_entry")
      .flatMap((w) => (w.entries ?? []).map((e) => normalizeToolName(e))),
  );
  if (unknown.size === 0) return [];
  return denyLists(document).flatMap(({ path, list }) => {
    const entries = list.filter((entry) => unknown.has(normalizeToolName(entry)));
    if (entries.length === 0) return [];
    const names = entries.map((e) => `"${e}"`).join(", ");
    return [
      {
        path,
        entries,
        message: `${names} match${entries.length === 1 ? "es" : ""} no tool, group or profile, so this deny denies nothing; fix the name or save anyway`,
      },
    ];
  });
}

export function checkDraft(input: unknown, tools: readonly ToolMeta[]): DraftCheck {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) return { issues: parsed.issues, warnings: [], pluginOnly: [], unknownDenies: [] };
  const all = collectDocumentWarnings(parsed.document, tools);
  const issues: PolicyDocumentIssue[] = all
    .filter((w) => w.code === "mode_override_loosens")
    .map((w) => ({ path: w.source ?? "modeOverrides", message: `refused: ${w.message}` }));
  const unknownDenies = findUnknownDenies(parsed.document, all);
  const denied = new Set(unknownDenies.flatMap((d) => d.entries.map((e) => normalizeToolName(e))));
  // A warning about names that are all reported as deny errors would say the same thing twice.
  const warnings = all.filter(
    (w) =>
      w.code !== "mode_override_loosens" &&
      !(
        w.code === "unknown_entry" &&
        (w.entries ?? []).length > 0 &&
        (w.entries ?? []).every((e) => denied.has(normalizeToolName(e)))
      ),
  );
  const pluginOnly = [
    ...new Set(warnings.filter((w) => w.code === "plugin_only_allowlist").map((w) => w.source ?? "?")),
  ];
  return { issues, warnings, pluginOnly, unknownDenies, document: parsed.document };
}
