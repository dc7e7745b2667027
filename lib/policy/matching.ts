// Compiling allow/deny lists into matchers that also say which entry decided.
import {
  CORE_TOOL_NAMES,
  expandToolGroupEntry,
  isOwnerOnlyTool,
  normalizeToolName,
  type PluginToolGroups,
} from "./names";
import type { ToolPolicy } from "./types";

/** One list entry as written (e.g. "group:fs", "web_*"), compiled once. */
export type CompiledEntry = {
  entry: string;
  all: boolean;
  /** True when the entry was a group (built-in, `group:plugins` or a plugin id). */
  group: boolean;
  names: ReadonlySet<string> | null;
  /** A wildcard pattern: a RegExp, or an equivalent string test for the simple shapes. */
  regex: { test: (name: string) => boolean } | null;
};

export type CompiledToolPolicy = {
  deny: CompiledEntry[];
  /** null = no allow list = everything allowed. */
  allow: CompiledEntry[] | null;
};

/** Why a name was removed, or null when the policy keeps it. */
export type PolicyVerdict = { allowed: true; rule?: string } | { allowed: false; rule: string };

function escapeRegex(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The common globs ("jira_*", "*_read", "*_op_*") as string tests: a compile tries every pattern against every tool,
 * and with thousands of plugin tools a prefix or substring check is several times cheaper than a regex run.
 */
function globTest(entry: string, regex: RegExp): { test: (name: string) => boolean } {
  const parts = entry.split("*");
  let fast: ((name: string) => boolean) | undefined;
  if (parts.length === 2 && parts[1] === "") fast = (name) => name.startsWith(parts[0]!);
  else if (parts.length === 2 && parts[0] === "") fast = (name) => name.endsWith(parts[1]!);
  else if (parts.length === 3 && parts[0] === "" && parts[2] === "") fast = (name) => name.includes(parts[1]!);
  if (!fast) return regex;
  const test = fast;
  // The regex's `.` matches no line terminator: a name holding one gets the regex's own answer.
  return { test: (name) => (LINE_TERMINATOR.test(name) ? regex.test(name) : test(name)) };
}
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

export function compileEntry(raw: string, pluginGroups?: PluginToolGroups): CompiledEntry | null {
  const entry = normalizeToolName(raw);
  if (!entry) return null;
  if (entry === "*") return { entry, all: true, group: false, names: null, regex: null };
  const group = expandToolGroupEntry(entry, pluginGroups);
  if (group) return { entry, all: false, group: true, names: new Set(group), regex: null };
  if (entry.includes("*")) {
    const source = entry.split("*").map(escapeRegex).join(".*");
    return { entry, all: false, group: false, names: null, regex: globTest(entry, new RegExp(`^${source}$`)) };
  }
  return { entry, all: false, group: false, names: new Set([entry]), regex: null };
}

export function compileEntries(list: readonly string[] | undefined, pluginGroups?: PluginToolGroups): CompiledEntry[] {
  const out: CompiledEntry[] = [];
  for (const raw of list ?? []) {
    const compiled = compileEntry(raw, pluginGroups);
    if (compiled) out.push(compiled);
  }
  return out;
}

export function entryMatches(entry: CompiledEntry, name: string): boolean {
  if (entry.all) return true;
  if (entry.names) return entry.names.has(name);
  return entry.regex !== null && entry.regex.test(name);
}

export function findMatchingEntry(entries: readonly CompiledEntry[], name: string): CompiledEntry | undefined {
  for (const entry of entries) if (entryMatches(entry, name)) return entry;
  return undefined;
}

/** `alsoAllow` only widens an allow list that exists: on its own it must not turn "everything" into "only these". */
export function effectiveAllowList(policy: ToolPolicy): string[] | undefined {
  const allow = policy.allow ?? [];
  if (allow.length === 0) return undefined;
  return [...allow, ...(policy.alsoAllow ?? [])];
}

export function compileToolPolicy(policy: ToolPolicy, pluginGroups?: PluginToolGroups): CompiledToolPolicy {
  const allowList = effectiveAllowList(policy);
  const allow = allowList ? compileEntries(allowList, pluginGroups) : null;
  return { deny: compileEntries(policy.deny, pluginGroups), allow: allow && allow.length > 0 ? allow : null };
}

const ALLOW_RULE_PREVIEW = 4;

export function describeAllowList(allow: readonly CompiledEntry[]): string {
  const shown = allow.slice(0, ALLOW_RULE_PREVIEW).map((entry) => entry.entry);
  const more = allow.length > ALLOW_RULE_PREVIEW ? `, +${allow.length - ALLOW_RULE_PREVIEW} more` : "";
  return `allow: ${shown.join(", ")}${more}`;
}

/** apply_patch writes files, so it follows `write` both ways (README: "apply_patch pairing"). */
export const APPLY_PATCH_PAIRED_TOOL = "write";

/** Deny beats allow; an empty allow list allows all; apply_patch is allowed and denied together with write. */
export function evaluateCompiledPolicy(policy: CompiledToolPolicy, rawName: string): PolicyVerdict {
  const name = normalizeToolName(rawName);
  const denied = findMatchingEntry(policy.deny, name);
  if (denied) return { allowed: false, rule: `deny: ${denied.entry}` };
  const patch = name === "apply_patch";
  if (patch) {
    // Denying writes must not leave a second way to write files.
    const viaWrite = findMatchingEntry(policy.deny, APPLY_PATCH_PAIRED_TOOL);
    if (viaWrite) return { allowed: false, rule: `deny: ${viaWrite.entry} (apply_patch is a write)` };
  }
  if (!policy.allow) return { allowed: true };
  const allowed = findMatchingEntry(policy.allow, name);
  if (allowed) return { allowed: true, rule: `allow: ${allowed.entry}` };
  if (patch) {
    const viaWrite = findMatchingEntry(policy.allow, APPLY_PATCH_PAIRED_TOOL);
    if (viaWrite) return { allowed: true, rule: `allow: ${viaWrite.entry} (write admits apply_patch)` };
  }
  return { allowed: false, rule: `not in ${describeAllowList(policy.allow)}` };
}

/**
 * evaluateCompiledPolicy's verdict without building it, for a name that is already normalized: compiling a unit asks
 * this for every tool, and only the tools it removes ever need the rule text (built later, on demand).
 */
export function compiledPolicyAllows(policy: CompiledToolPolicy, name: string): boolean {
  if (findMatchingEntry(policy.deny, name)) return false;
  const patch = name === "apply_patch";
  if (patch && findMatchingEntry(policy.deny, APPLY_PATCH_PAIRED_TOOL)) return false;
  if (!policy.allow || findMatchingEntry(policy.allow, name)) return true;
  return patch && findMatchingEntry(policy.allow, APPLY_PATCH_PAIRED_TOOL) !== undefined;
}

export function makeToolPolicyMatcher(policy: ToolPolicy, pluginGroups?: PluginToolGroups): (name: string) => boolean {
  const compiled = compileToolPolicy(policy, pluginGroups);
  return (name) => evaluateCompiledPolicy(compiled, name).allowed;
}

export function isToolAllowedByPolicyName(name: string, policy?: ToolPolicy, pluginGroups?: PluginToolGroups): boolean {
  if (!policy) return true;
  return makeToolPolicyMatcher(policy, pluginGroups)(name);
}

export function isToolAllowedByPolicies(
  name: string,
  policies: ReadonlyArray<ToolPolicy | undefined>,
  pluginGroups?: PluginToolGroups,
): boolean {
  return policies.every((policy) => isToolAllowedByPolicyName(name, policy, pluginGroups));
}

export function filterToolsByPolicy<T extends { name: string }>(
  tools: readonly T[],
  policy?: ToolPolicy,
  pluginGroups?: PluginToolGroups,
): T[] {
  if (!policy) return [...tools];
  const matcher = makeToolPolicyMatcher(policy, pluginGroups);
  return tools.filter((tool) => matcher(tool.name));
}

/** Opt-in: only a sender explicitly flagged as owner keeps owner-only tools (flagged, or owner-only by name). */
export function applyOwnerOnlyToolPolicy<T extends { name: string; ownerOnly?: boolean }>(
  tools: readonly T[],
  senderIsOwner: boolean,
): T[] {
  if (senderIsOwner === true) return [...tools];
  return tools.filter((tool) => !isOwnerOnlyTool(tool));
}

function matchesAnyName(entry: CompiledEntry, names: ReadonlySet<string>): boolean {
  // Exact entries are looked up (O(entry size)); only wildcards have to be tried against every name.
  if (entry.names) {
    for (const name of entry.names) if (names.has(name)) return true;
    return false;
  }
  for (const name of names) if (entryMatches(entry, name)) return true;
  return false;
}

/** Entries that name nothing: not "*", not a group, no tool matches. Usually a typo worth a warning. */
export function findUnknownEntries(entries: readonly CompiledEntry[], knownNames: ReadonlySet<string>): string[] {
  return entries
    .filter((entry) => !entry.all && !entry.group && !matchesAnyName(entry, knownNames))
    .map((entry) => entry.entry);
}

export type AllowlistAnalysis = {
  /** At least one entry names plugin tools and none names a core tool (or "*"). */
  pluginOnly: boolean;
  /** The entries that name plugin tools (a plugin id, `group:plugins`, or names/patterns matching only plugin tools). */
  pluginEntries: string[];
  /** Entries that name no registered tool and no built-in tool. */
  unknown: string[];
};

// One set per tool list, not one per analysed list: with thousands of plugin tools, building it was most of a compile.
const pluginNameSets = new WeakMap<PluginToolGroups, ReadonlySet<string>>();
const NO_NAMES: ReadonlySet<string> = new Set();
function pluginNameSet(pluginGroups: PluginToolGroups | undefined): ReadonlySet<string> {
  if (!pluginGroups) return NO_NAMES;
  let names = pluginNameSets.get(pluginGroups);
  if (!names) pluginNameSets.set(pluginGroups, (names = new Set(pluginGroups.all)));
  return names;
}

/**
 * Sorts an allow list's entries into core, plugin and unknown (the reference's analyzeAllowlistByToolType).
 * `coreNames`: names of non-plugin tools (built-in vocabulary and registered core tools).
 */
export function analyzeAllowlist(
  allow: readonly CompiledEntry[] | null,
  pluginGroups: PluginToolGroups | undefined,
  coreNames: ReadonlySet<string> = CORE_TOOL_NAMES,
): AllowlistAnalysis {
  const pluginEntries: string[] = [];
  const unknown: string[] = [];
  const pluginNames = pluginNameSet(pluginGroups);
  let core = false;
  for (const entry of allow ?? []) {
    if (entry.all) core = true;
    else if (entry.entry === "group:plugins" || pluginGroups?.byPlugin.has(entry.entry))
      pluginEntries.push(entry.entry);
    else if (entry.group || matchesAnyName(entry, coreNames)) core = true;
    else if (matchesAnyName(entry, pluginNames)) pluginEntries.push(entry.entry);
    else unknown.push(entry.entry);
  }
  return { pluginOnly: !core && pluginEntries.length > 0, pluginEntries, unknown };
}

/** An allow list with no core entry: it would silently remove every core tool (the reference stripped it). */
export function isPluginOnlyAllowlist(
  allow: readonly CompiledEntry[] | null,
  pluginGroups?: PluginToolGroups,
): boolean {
  return analyzeAllowlist(allow, pluginGroups).pluginOnly;
}
