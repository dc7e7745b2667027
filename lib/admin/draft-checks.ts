// Checks a draft document the way the engine will read it, before it is saved: unknown tool names and
// plugin-only allow lists (warnings; the latter needs an explicit confirmation) and mode overrides that would
// loosen a tool (refused). Warnings come from resolveEffectiveToolPolicy itself, resolved for a set of contexts
// that makes every configured layer apply, so the editor flags exactly what the engine reports.
import {
  parsePolicyDocument,
  resolveEffectiveToolPolicy,
  type PolicyContext,
  type PolicyDocument,
  type PolicyDocumentIssue,
  type PolicyWarning,
  type ToolMeta,
} from "@/lib/policy";

export type DraftCheck = {
  /** Blocking: schema issues and loosening mode overrides. */
  issues: PolicyDocumentIssue[];
  warnings: PolicyWarning[];
  /** Sources of plugin-only allow lists: saving them needs `confirmPluginOnly`. */
  pluginOnly: string[];
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
  for (const agent of Object.values(document.agents)) for (const key of Object.keys(agent.tools.byProvider ?? {})) providers.add(key);
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
      if (warning.code === "mode_not_granted" || warning.code === "invalid_mode" || warning.code === "unknown_agent") continue;
      seen.set(`${warning.code}|${warning.source ?? ""}|${warning.message}`, warning);
    }
  }
  return [...seen.values()];
}

export function checkDraft(input: unknown, tools: readonly ToolMeta[]): DraftCheck {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) return { issues: parsed.issues, warnings: [], pluginOnly: [] };
  const all = collectDocumentWarnings(parsed.document, tools);
  const issues: PolicyDocumentIssue[] = all
    .filter((w) => w.code === "mode_override_loosens")
    .map((w) => ({ path: w.source ?? "modeOverrides", message: `refused: ${w.message}` }));
  const warnings = all.filter((w) => w.code !== "mode_override_loosens");
  const pluginOnly = [...new Set(warnings.filter((w) => w.code === "plugin_only_allowlist").map((w) => w.source ?? "?"))];
  return { issues, warnings, pluginOnly, document: parsed.document };
}
