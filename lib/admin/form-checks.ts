// Checks the policy forms run as you type (pure: the editor and the tests share them). Field shapes come from the
// document's own zod schemas, so a form accepts exactly what a save accepts; tool lists are checked the way the
// engine reads them (names, group:… groups, x* wildcards, plugin groups), so a typo is named before it is saved.
import type { z } from "zod";
import { BUILTIN_PROFILE_IDS, buildPluginToolGroups, normalizeToolName, type ToolMeta } from "@/lib/policy";
import { compileEntries, findUnknownEntries } from "@/lib/policy/matching";

/** The first problem zod finds with a value, or undefined when the schema accepts it. */
export function fieldProblem(schema: z.ZodType, value: unknown): string | undefined {
  const result = schema.safeParse(value);
  return result.success ? undefined : result.error.issues[0]?.message;
}

/** Entries of a tool list that match no tool and are no group or wildcard that matches one. */
export function unknownToolEntries(list: readonly string[], tools: readonly ToolMeta[]): string[] {
  const known = new Set(tools.map((t) => normalizeToolName(t.name)));
  return findUnknownEntries(compileEntries(list, buildPluginToolGroups(tools)), known);
}

export function toolListNote(list: readonly string[], tools: readonly ToolMeta[]): string | undefined {
  const unknown = unknownToolEntries(list, tools);
  if (unknown.length === 0) return undefined;
  return `${unknown.map((e) => `"${e}"`).join(", ")} match${unknown.length === 1 ? "es" : ""} no tool or group: check the spelling (it is kept, and matches nothing)`;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_.:@-]*$/;

/** A new key of a record (an agent, profile id): present, a plain id, not taken, not a built-in profile. */
export function newIdProblem(
  id: string,
  { taken, kind, builtinProfiles = false }: { taken: readonly string[]; kind: string; builtinProfiles?: boolean },
): string | undefined {
  const value = id.trim();
  if (!value) return `give the ${kind} an id`;
  if (value.length > 64) return "at most 64 characters";
  if (!ID.test(value)) return "letters, digits and _ . : @ - only, starting with a letter or digit";
  if (value === "__proto__") return '"__proto__" cannot be an id';
  if (taken.includes(value)) return `there is already ${/^[aeiou]/.test(kind) ? "an" : "a"} ${kind} "${value}"`;
  if (builtinProfiles && (BUILTIN_PROFILE_IDS as readonly string[]).includes(value))
    return `"${value}" is a built-in profile`;
  return undefined;
}

/** A tools.byProvider key: "provider" or "provider/model". */
export function providerKeyProblem(key: string, taken: readonly string[]): string | undefined {
  const value = key.trim();
  if (!value) return "give a provider (openai) or a provider and model (openai/gpt-4o)";
  if (/\s/.test(value)) return "no spaces: write provider or provider/model";
  const [provider, ...model] = value.split("/");
  if (!provider || (value.includes("/") && !model.join("/"))) return "write provider or provider/model (both parts)";
  if (value === "__proto__") return '"__proto__" cannot be a key';
  if (taken.includes(value)) return `"${value}" already has rules`;
  return undefined;
}

/** Lines of a text area as a list: trimmed, blank lines dropped. */
export const linesOf = (text: string) =>
  text
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

type ScopeWithProfile = { profile?: string; byProvider?: Readonly<Record<string, { profile?: string }>> };

/** Where a profile is used (paths in the document): a profile in use cannot be removed without breaking them. */
export function profileUses(
  document: { tools: ScopeWithProfile; agents: Readonly<Record<string, { tools: ScopeWithProfile }>> },
  id: string,
): string[] {
  const uses: string[] = [];
  const scan = (scope: ScopeWithProfile, path: string) => {
    if (scope.profile === id) uses.push(`${path}.profile`);
    for (const [key, entry] of Object.entries(scope.byProvider ?? {}))
      if (entry.profile === id) uses.push(`${path}.byProvider.${key}.profile`);
  };
  scan(document.tools, "tools");
  for (const [agent, config] of Object.entries(document.agents)) scan(config.tools, `agents.${agent}.tools`);
  return uses;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 9110 token characters: what fetch accepts as a header name.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A new or renamed MCP env variable or header name: present, well-formed, not taken (headers ignore case). */
export function secretNameProblem(
  name: string,
  { kind, taken }: { kind: "env" | "headers"; taken: readonly string[] },
): string | undefined {
  const value = name.trim();
  if (!value) return kind === "env" ? "give the variable a name" : "give the header a name";
  if (kind === "env" && !ENV_NAME.test(value)) return "letters, digits and _ only, not starting with a digit";
  if (kind === "headers" && !HEADER_NAME.test(value)) return "no spaces or separators such as : ( ) in a header name";
  if (value === "__proto__") return '"__proto__" cannot be a name';
  const same = (a: string) => (kind === "headers" ? a.toLowerCase() === value.toLowerCase() : a === value);
  if (taken.some(same)) return `"${value}" is already set`;
  return undefined;
}
