import { describe, expect, it } from "vitest";
import {
  applySystemToolSettingsPatch,
  DEFAULT_SYSTEM_TOOL_SETTINGS,
  mergeToolPolicies,
  normalizeSystemToolSettings,
  type SystemToolSettingsInput,
  type SystemToolSettingsPatch,
} from "@/lib/policy";

const KiB = 1024;
const MiB = 1024 * 1024;

describe("system tool settings defaults", () => {
  it("Y2 defaults: fs on with 512 KiB / 2 MiB, exec and web on, mcp off with no servers", () => {
    expect(DEFAULT_SYSTEM_TOOL_SETTINGS).toEqual({
      fs: { enabled: true, maxReadBytes: 512 * KiB, maxWriteBytes: 2 * MiB },
      exec: { enabled: true },
      web: { enabled: true },
      mcp: { enabled: false, allowedServers: [] },
    });
  });

  it("Y12 old stored settings missing fields get defaults", () => {
    expect(normalizeSystemToolSettings({ fs: { enabled: false } })).toEqual({
      ...DEFAULT_SYSTEM_TOOL_SETTINGS,
      fs: { enabled: false, maxReadBytes: 512 * KiB, maxWriteBytes: 2 * MiB },
    });
    expect(normalizeSystemToolSettings(undefined)).toEqual(DEFAULT_SYSTEM_TOOL_SETTINGS);
    expect(normalizeSystemToolSettings({ mcp: { enabled: true } }).mcp).toEqual({ enabled: true, allowedServers: [] });
  });

  it("Y12 invalid stored limits are rejected instead of silently loosening", () => {
    expect(() => normalizeSystemToolSettings({ fs: { maxReadBytes: -1 } })).toThrow();
    expect(() => normalizeSystemToolSettings({ fs: { unknown: 1 } } as unknown as SystemToolSettingsInput)).toThrow();
  });
});

describe("Y4 mergeToolPolicies (agent can only tighten)", () => {
  type Row = [
    string,
    SystemToolSettingsInput | undefined,
    SystemToolSettingsPatch | undefined,
    (m: ReturnType<typeof mergeToolPolicies>) => unknown,
    unknown,
  ];
  const rows: Row[] = [
    ["enabled = AND: agent disables", {}, { fs: { enabled: false } }, (m) => m.fs.enabled, false],
    [
      "enabled = AND: agent cannot re-enable",
      { fs: { enabled: false } },
      { fs: { enabled: true } },
      (m) => m.fs.enabled,
      false,
    ],
    ["enabled: agent unset keeps system", { web: { enabled: false } }, {}, (m) => m.web.enabled, false],
    ["limit = min: agent lower wins", {}, { fs: { maxReadBytes: 1000 } }, (m) => m.fs.maxReadBytes, 1000],
    [
      "limit = min: agent higher is ignored",
      { fs: { maxWriteBytes: 4096 } },
      { fs: { maxWriteBytes: 10 * MiB } },
      (m) => m.fs.maxWriteBytes,
      4096,
    ],
    ["limit: agent unset never loosens", { fs: { maxReadBytes: 2048 } }, { fs: {} }, (m) => m.fs.maxReadBytes, 2048],
    [
      "limit: system unset falls back to the default, not to the agent's larger value",
      undefined,
      { fs: { maxReadBytes: 10 * MiB } },
      (m) => m.fs.maxReadBytes,
      512 * KiB,
    ],
    [
      "servers intersect",
      { mcp: { enabled: true, allowedServers: ["github", "jira"] } },
      { mcp: { allowedServers: ["jira", "slack"] } },
      (m) => m.mcp.allowedServers,
      ["jira"],
    ],
    [
      "servers: agent unset keeps system",
      { mcp: { enabled: true, allowedServers: ["github"] } },
      {},
      (m) => m.mcp.allowedServers,
      ["github"],
    ],
    [
      "servers: system unset means none",
      { mcp: { enabled: true } },
      { mcp: { allowedServers: ["github"] } },
      (m) => m.mcp.allowedServers,
      [],
    ],
    [
      "mcp stays off when only the agent enables it",
      undefined,
      { mcp: { enabled: true, allowedServers: ["x"] } },
      (m) => m.mcp.enabled,
      false,
    ],
  ];
  it.each(rows)("%s", (_label, system, agent, pick, expected) => {
    expect(pick(mergeToolPolicies({ system, agent }))).toEqual(expected);
  });

  it("no agent settings yields the normalized system settings", () => {
    expect(mergeToolPolicies({ system: { exec: { enabled: false } } })).toEqual({
      ...DEFAULT_SYSTEM_TOOL_SETTINGS,
      exec: { enabled: false },
    });
  });
});

describe("Y13 applySystemToolSettingsPatch (saving)", () => {
  it("an unset value keeps the stored value instead of replacing the limit", () => {
    const stored = normalizeSystemToolSettings({ fs: { maxReadBytes: 4096 } });
    const saved = applySystemToolSettingsPatch(stored, { fs: { maxReadBytes: undefined, enabled: false } });
    expect(saved.fs).toEqual({ enabled: false, maxReadBytes: 4096, maxWriteBytes: 2 * MiB });
  });

  it("a set value replaces the stored one and old settings get defaults first", () => {
    const saved = applySystemToolSettingsPatch({ mcp: { enabled: true } }, { mcp: { allowedServers: ["github"] } });
    expect(saved.mcp).toEqual({ enabled: true, allowedServers: ["github"] });
    expect(saved.fs.maxWriteBytes).toBe(2 * MiB);
  });
});
