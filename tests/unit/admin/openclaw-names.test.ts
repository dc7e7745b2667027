// OpenClaw names in Toolgate's vocabulary: groups compared member by member, MCP names, ids of teams and servers.
import { describe, expect, it } from "vitest";
import { CORE_TOOL_NAMES } from "@/lib/policy";
import { mapToolNames, mcpServerIdFor, teamIdForGroup } from "@/lib/admin/openclaw-names";

const known = new Set([...CORE_TOOL_NAMES, "mcp__outlook-graph__send_mail"]);
const map = (list: string[], servers: string[] = []) => mapToolNames(list, known, new Set(servers));

describe("mapToolNames", () => {
  it("keeps plain tools, aliases and groups that mean the same tools here", () => {
    expect(map(["read", "Bash", "group:fs"]).entries).toEqual(["read", "exec", "group:fs"]);
    expect(map(["read", "group:fs"]).notes).toEqual([]);
  });

  it("expands groups Toolgate lacks or defines differently into the members it has, and says so", () => {
    const media = map(["group:media"]);
    expect(media.entries).toEqual(["image"]);
    expect(media.notes[0]).toMatch(/"group:media" → image/);
    const openclaw = map(["group:openclaw"]);
    expect(openclaw.entries).toEqual(
      expect.arrayContaining(["message", "browser", "web_search", "sessions_list", "cron", "gateway"]),
    );
    for (const excluded of ["read", "write", "edit", "apply_patch", "exec", "process", "canvas"])
      expect(openclaw.entries).not.toContain(excluded);
  });

  it("maps OpenClaw MCP names and bundle-mcp", () => {
    expect(map(["bundle-mcp"]).entries).toEqual(["group:plugins"]);
    expect(map(["outlook-graph__send_mail", "outlook-graph__*"], ["outlook-graph"]).entries).toEqual([
      "mcp__outlook-graph__send_mail",
      "mcp__outlook-graph__*",
    ]);
    expect(map(["Outlook Graph__Send Mail"]).entries).toEqual(["mcp__outlook-graph__send_mail"]);
    expect(map(["9lives__x"]).notes[0]).toMatch(/mcp__mcp-9lives__x \(no MCP server "mcp-9lives" is configured\)/);
  });

  it("reports names that match nothing here instead of dropping them", () => {
    const result = map(["discord", "group:nonsense", "mcp__known__tool", "web_*"]);
    expect(result.entries).toEqual(["discord", "group:nonsense", "mcp__known__tool", "web_*"]);
    expect(result.notes).toEqual([
      '"discord" is not a Toolgate tool; kept as written and matches nothing',
      '"group:nonsense" is not an OpenClaw group Toolgate knows; kept as written and matches nothing',
    ]);
  });
});

describe("ids", () => {
  it("team ids keep @ . - * and lower-case the rest", () => {
    expect(teamIdForGroup("whatsapp", "120363424282127706@g.us")).toBe("whatsapp:120363424282127706@g.us");
    expect(teamIdForGroup("telegram", "-1001234567890")).toBe("telegram:-1001234567890");
    expect(teamIdForGroup("telegram", "*")).toBe("telegram:*");
    expect(teamIdForGroup("slack", "C0123 ABC/x")).toBe("slack:c0123-abc-x");
    expect(teamIdForGroup("discord", "x".repeat(100))).toHaveLength(64);
  });

  it("MCP server ids follow OpenClaw's provider-safe prefix and Toolgate's id rule", () => {
    expect(mcpServerIdFor("Outlook Graph")).toBe("outlook-graph");
    expect(mcpServerIdFor("9lives")).toBe("mcp-9lives");
    expect(mcpServerIdFor("a__b")).toBe("a_b");
    expect(mcpServerIdFor("x".repeat(50))).toHaveLength(32);
  });
});
