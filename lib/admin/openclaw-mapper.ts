// The import's bookkeeping, shared by the top-level mapping (openclaw-import.ts) and the section mappers
// (openclaw-sections.ts): names mapped onto Toolgate's, and every note for the report.
import {
  buildPluginToolGroups,
  CORE_TOOL_NAMES,
  expandToolGroups,
  type PolicyDocument,
  type ToolMeta,
} from "@/lib/policy";
import { mapToolNames } from "./openclaw-names";

export type ImportNote = { path: string; message: string };
export type ImportReport = {
  mapped: ImportNote[];
  unmapped: ImportNote[];
  replaced: ImportNote[];
  names: ImportNote[];
};
export type Json = Record<string, unknown>;

export const isRecord = (value: unknown): value is Json =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const LIST_KEYS = ["allow", "alsoAllow", "deny"] as const;

export class Mapper {
  readonly report: ImportReport = { mapped: [], unmapped: [], replaced: [], names: [] };
  readonly mcpServerIds = new Set<string>();
  private readonly known: Set<string>;
  private readonly pluginGroups;

  constructor(tools: readonly ToolMeta[], base: PolicyDocument) {
    this.known = new Set([...CORE_TOOL_NAMES, ...tools.map((t) => t.name)]);
    this.pluginGroups = buildPluginToolGroups(tools);
    for (const server of base.mcpServers) this.mcpServerIds.add(server.id);
  }

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
    const mapped = mapToolNames(names, this.known, this.mcpServerIds);
    for (const message of mapped.notes) this.report.names.push({ path, message });
    return mapped.entries;
  }

  /** allow/alsoAllow/deny (+ profile, byProvider); every other key not in `extra` is reported under `path`. */
  scope(
    raw: unknown,
    path: string,
    options: { profile?: boolean; byProvider?: boolean; extra?: readonly string[] } = {},
  ): Json | undefined {
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
    if (options.profile && raw.profile !== undefined) {
      if (typeof raw.profile === "string" && raw.profile.trim() !== "") out.profile = raw.profile.trim();
      else this.skip(`${path}.profile`, "expected a profile name");
    }
    if (options.byProvider && raw.byProvider !== undefined) {
      if (!isRecord(raw.byProvider))
        this.skip(`${path}.byProvider`, "expected an object keyed by provider or provider/model");
      else {
        const byProvider: Json = {};
        for (const [key, value] of Object.entries(raw.byProvider)) {
          const mapped = this.scope(value, `${path}.byProvider.${key}`, { profile: true });
          if (mapped) byProvider[key] = mapped;
        }
        out.byProvider = byProvider;
      }
    }
    const known = new Set<string>([
      ...LIST_KEYS,
      ...(options.profile ? ["profile"] : []),
      ...(options.byProvider ? ["byProvider"] : []),
      ...(options.extra ?? []),
    ]);
    for (const key of Object.keys(raw))
      if (!known.has(key)) this.skip(`${path}.${key}`, "no counterpart in Toolgate's policy document");
    return out;
  }

  /** Merges an imported scope into an existing one: deny lists unite, other values replace (and are reported). */
  merge(existing: unknown, incoming: Json, path: string): Json {
    const out: Json = isRecord(existing) ? { ...existing } : {};
    for (const [key, value] of Object.entries(incoming)) {
      const before = out[key];
      if (key === "deny" && Array.isArray(before))
        out.deny = [...new Set([...(before as string[]), ...(value as string[])])];
      else if (key === "byProvider" && isRecord(value)) {
        const merged: Json = isRecord(before) ? { ...before } : {};
        for (const [provider, scope] of Object.entries(value))
          merged[provider] = this.merge(merged[provider], scope as Json, `${path}.byProvider.${provider}`);
        out.byProvider = merged;
      } else {
        if (before !== undefined && JSON.stringify(before) !== JSON.stringify(value)) {
          this.report.replaced.push({
            path: `${path}.${key}`,
            message: `was ${JSON.stringify(before)}, now ${JSON.stringify(value)}`,
          });
        }
        out[key] = value;
      }
    }
    return out;
  }

  /** The tools both lists allow (for folding a "*" sender allow list into a scope's own), or undefined if unknowable. */
  intersectAllow(a: readonly string[], b: readonly string[]): string[] | undefined {
    if ([...a, ...b].some((entry) => entry.includes("*"))) return undefined;
    const left = new Set(expandToolGroups(a, this.pluginGroups));
    return expandToolGroups(b, this.pluginGroups).filter((name) => left.has(name));
  }

  /**
   * toolsBySender of a scope. `id:<x>` (and legacy unprefixed keys, global only) become Toolgate senders (user
   * ids); `channel:<c>:<x>` too, on every channel. `"*"` applies to every sender in OpenClaw unless a more specific
   * entry matches; Toolgate folds it into the scope itself, so it also binds senders with their own entry (stricter).
   */
  senders(raw: unknown, path: string, scope: Json, senders: Json | undefined): void {
    if (raw === undefined) return;
    if (!isRecord(raw)) return this.skip(path, "expected an object keyed by sender");
    for (const [key, value] of Object.entries(raw)) {
      const at = `${path}.${key}`;
      const policy = this.scope(value, at);
      if (!policy) continue;
      if (key === "*") {
        this.foldWildcard(policy, at, scope);
        continue;
      }
      const match = /^(?:id:(.+)|channel:[^:]+:(.+)|([^:]+))$/.exec(key);
      const senderId = match?.[1] ?? match?.[2] ?? match?.[3];
      if (!senderId || !senders) {
        this.skip(
          at,
          senders
            ? `sender key "${key}" (e164/username/name) has no counterpart: Toolgate knows senders by user id; ⚠ this sender's restriction is NOT imported`
            : `per-sender policies inside an agent or group have no counterpart; ⚠ this sender's restriction is NOT imported`,
        );
        continue;
      }
      senders[senderId] = this.merge(senders[senderId], policy, `senders.${senderId}`);
      this.note(
        at,
        `sender "${senderId}" (a Toolgate user id${key.startsWith("channel:") ? "; applies on every channel" : ""})`,
      );
    }
  }

  private foldWildcard(policy: Json, at: string, scope: Json): void {
    if (Array.isArray(policy.deny))
      scope.deny = [...new Set([...((scope.deny as string[] | undefined) ?? []), ...(policy.deny as string[])])];
    if (Array.isArray(policy.allow)) {
      const current = scope.allow as string[] | undefined;
      const next = current ? this.intersectAllow(current, policy.allow as string[]) : (policy.allow as string[]);
      if (next) scope.allow = next;
      else
        this.skip(`${at}.allow`, "could not be combined with the scope's own allow list (wildcards); ⚠ not imported");
    }
    if (policy.alsoAllow !== undefined)
      this.skip(
        `${at}.alsoAllow`,
        "alsoAllow for every sender only widens an allow list of the sender scope, which Toolgate folds into the enclosing scope; left out",
      );
    this.note(
      at,
      "every sender: folded into the enclosing scope, so it binds senders with their own entry too (stricter than OpenClaw)",
    );
  }
}
