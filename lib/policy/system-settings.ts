// System tool settings: per-capability switches and limits. The system value is the ceiling; an agent can only
// tighten it (enabled = AND, limits = min ignoring unset, server lists intersect).
import { z } from "zod";
import { TOOL_GROUPS } from "./names";

export const DEFAULT_MAX_READ_BYTES = 512 * 1024;
export const DEFAULT_MAX_WRITE_BYTES = 2 * 1024 * 1024;

const byteLimit = z.number().int().positive();
const serverList = z.array(z.string().trim().min(1));

// Missing fields in old stored settings fall back to defaults (prefault parses `{}` through the inner defaults).
export const SystemToolSettingsSchema = z
  .object({
    fs: z
      .object({
        enabled: z.boolean().default(true),
        maxReadBytes: byteLimit.default(DEFAULT_MAX_READ_BYTES),
        maxWriteBytes: byteLimit.default(DEFAULT_MAX_WRITE_BYTES),
      })
      .strict()
      .prefault({}),
    exec: z
      .object({ enabled: z.boolean().default(true) })
      .strict()
      .prefault({}),
    web: z
      .object({ enabled: z.boolean().default(true) })
      .strict()
      .prefault({}),
    // Empty allowedServers = no server: enabling MCP alone exposes nothing.
    mcp: z
      .object({ enabled: z.boolean().default(false), allowedServers: serverList.default(() => []) })
      .strict()
      .prefault({}),
  })
  .strict();

/** The agent side (or a settings update): every field optional, no defaults, so "unset" stays distinguishable. */
export const SystemToolSettingsPatchSchema = z
  .object({
    fs: z
      .object({
        enabled: z.boolean().optional(),
        maxReadBytes: byteLimit.optional(),
        maxWriteBytes: byteLimit.optional(),
      })
      .strict()
      .optional(),
    exec: z.object({ enabled: z.boolean().optional() }).strict().optional(),
    web: z.object({ enabled: z.boolean().optional() }).strict().optional(),
    mcp: z.object({ enabled: z.boolean().optional(), allowedServers: serverList.optional() }).strict().optional(),
  })
  .strict();

export type SystemToolSettings = z.output<typeof SystemToolSettingsSchema>;
export type SystemToolSettingsInput = z.input<typeof SystemToolSettingsSchema>;
export type SystemToolSettingsPatch = z.output<typeof SystemToolSettingsPatchSchema>;
export type SystemCapability = keyof SystemToolSettings;

export const DEFAULT_SYSTEM_TOOL_SETTINGS: SystemToolSettings = Object.freeze(SystemToolSettingsSchema.parse({}));

/** Fills defaults into (possibly old) stored settings. Throws on invalid values: a bad ceiling must not pass silently. */
export function normalizeSystemToolSettings(input?: SystemToolSettingsInput | null): SystemToolSettings {
  return SystemToolSettingsSchema.parse(input ?? {});
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

function intersectServers(system: readonly string[], agent: readonly string[] | undefined): string[] {
  if (agent === undefined) return [...system];
  return system.filter((server) => agent.includes(server));
}

/** Effective settings = system ceiling tightened by the agent. Unset on either side never loosens. */
export function mergeToolPolicies(params: {
  system?: SystemToolSettingsInput | null;
  agent?: SystemToolSettingsPatch | null;
}): SystemToolSettings {
  const system = normalizeSystemToolSettings(params.system);
  const agent = params.agent ?? {};
  return {
    fs: {
      enabled: system.fs.enabled && (agent.fs?.enabled ?? true),
      // The system side is always set after normalization, so min never yields undefined here.
      maxReadBytes: minDefined(system.fs.maxReadBytes, agent.fs?.maxReadBytes) ?? DEFAULT_MAX_READ_BYTES,
      maxWriteBytes: minDefined(system.fs.maxWriteBytes, agent.fs?.maxWriteBytes) ?? DEFAULT_MAX_WRITE_BYTES,
    },
    exec: { enabled: system.exec.enabled && (agent.exec?.enabled ?? true) },
    web: { enabled: system.web.enabled && (agent.web?.enabled ?? true) },
    mcp: {
      enabled: system.mcp.enabled && (agent.mcp?.enabled ?? true),
      allowedServers: intersectServers(system.mcp.allowedServers, agent.mcp?.allowedServers),
    },
  };
}

/** Saving a settings form: field-level merge in which an unset (undefined) value keeps the stored one. */
export function applySystemToolSettingsPatch(
  current: SystemToolSettingsInput | null | undefined,
  patch: SystemToolSettingsPatch,
): SystemToolSettings {
  const base = normalizeSystemToolSettings(current);
  const pick = <V>(next: V | undefined, previous: V): V => (next === undefined ? previous : next);
  return {
    fs: {
      enabled: pick(patch.fs?.enabled, base.fs.enabled),
      maxReadBytes: pick(patch.fs?.maxReadBytes, base.fs.maxReadBytes),
      maxWriteBytes: pick(patch.fs?.maxWriteBytes, base.fs.maxWriteBytes),
    },
    exec: { enabled: pick(patch.exec?.enabled, base.exec.enabled) },
    web: { enabled: pick(patch.web?.enabled, base.web.enabled) },
    mcp: {
      enabled: pick(patch.mcp?.enabled, base.mcp.enabled),
      allowedServers: pick(patch.mcp?.allowedServers, base.mcp.allowedServers),
    },
  };
}

/** Which capability governs a tool, if any. Plugin tools belong to mcp whatever their name. */
export function capabilityOfTool(name: string, pluginId?: string): SystemCapability | undefined {
  if (pluginId) return "mcp";
  if (TOOL_GROUPS["group:fs"]?.includes(name)) return "fs";
  if (TOOL_GROUPS["group:runtime"]?.includes(name)) return "exec";
  if (TOOL_GROUPS["group:web"]?.includes(name)) return "web";
  return undefined;
}

/** The rule that switches a tool off, or undefined when the settings keep it. */
export function systemSettingsRule(settings: SystemToolSettings, name: string, pluginId?: string): string | undefined {
  const capability = capabilityOfTool(name, pluginId);
  if (!capability) return undefined;
  if (!settings[capability].enabled) return `${capability}.enabled: false`;
  const server = pluginId?.trim().toLowerCase();
  if (capability === "mcp" && server && !settings.mcp.allowedServers.some((s) => s.toLowerCase() === server)) {
    return `mcp.allowedServers excludes ${pluginId}`;
  }
  return undefined;
}

const BYTE_UNITS = [
  ["GiB", 1024 ** 3],
  ["MiB", 1024 ** 2],
  ["KiB", 1024],
] as const;

/** A byte limit as people read it: the largest binary unit that states it exactly ("512 KiB", "2 MiB", "1000 B"). */
export function formatByteSize(bytes: number): string {
  for (const [unit, size] of BYTE_UNITS) if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  return `${bytes} B`;
}

/**
 * Reads a byte limit typed in the settings form: a whole number of bytes, or a number with B, KiB, MiB or GiB
 * ("512 KiB", "1.5 MiB"). Empty, zero, fractional bytes and other units (KB and MB are ambiguous) are refused
 * with the reason, so a limit is never saved as nothing.
 */
export function parseByteSize(text: string): { ok: true; bytes: number } | { ok: false; reason: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { ok: false, reason: "a limit cannot be empty" };
  const m = /^(\d+(?:\.\d+)?)\s*(b|kib|mib|gib)?$/i.exec(trimmed);
  if (!m) return { ok: false, reason: "write a size such as 512 KiB, 2 MiB or a number of bytes" };
  const unit = m[2]?.toLowerCase();
  const size = BYTE_UNITS.find(([name]) => name.toLowerCase() === unit)?.[1] ?? 1;
  const bytes = Number(m[1]) * size;
  if (!Number.isSafeInteger(bytes) || bytes <= 0)
    return { ok: false, reason: "a limit needs a positive whole number of bytes" };
  return { ok: true, bytes };
}
