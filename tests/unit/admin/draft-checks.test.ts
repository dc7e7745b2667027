import { describe, expect, it } from "vitest";
import { checkDraft } from "@/lib/admin/draft-checks";
import { TOOLS } from "./fixtures";

describe("draft checks", () => {
  it("returns schema issues with paths", () => {
    const check = checkDraft({ tools: { deny: "exec" }, bogus: 1 }, TOOLS);
    expect(check.document).toBeUndefined();
    expect(check.issues.map((i) => i.path).sort()).toEqual(["bogus", "tools.deny"]);
  });

  it("flags unknown tool names in any layer, including agents and teams (deny lists as errors, allow lists as warnings)", () => {
    const check = checkDraft(
      {
        tools: { deny: ["exce"] },
        teams: { ops: { deny: ["wirte"] } },
        agents: { bot: { name: "Bot", tools: { allow: ["raed"] } } },
      },
      TOOLS,
    );
    expect(check.issues).toEqual([]);
    const unknown = check.warnings.filter((w) => w.code === "unknown_entry").flatMap((w) => w.entries ?? []);
    expect(unknown).toEqual(["raed"]);
    expect(check.unknownDenies.flatMap((d) => d.entries).sort()).toEqual(["exce", "wirte"]);
  });

  it("reports a plugin-only allow list so it can require confirmation", () => {
    const check = checkDraft({ teams: { ops: { allow: ["github"] } } }, TOOLS);
    expect(check.pluginOnly.length).toBe(1);
    expect(check.pluginOnly[0]).toContain("ops");
    expect(checkDraft({ teams: { ops: { allow: ["github", "read"] } } }, TOOLS).pluginOnly).toEqual([]);
  });

  it("refuses a mode override that loosens a tool, with the reason", () => {
    const check = checkDraft({ modeOverrides: { read: ["chat_safe", "coding"] } }, TOOLS);
    expect(check.issues).toHaveLength(1);
    expect(check.issues[0]!.path).toBe("modeOverrides.read");
    expect(check.issues[0]!.message).toMatch(/chat_safe/);
    expect(checkDraft({ modeOverrides: { current_time: ["coding"] } }, TOOLS).issues).toEqual([]);
  });
});

describe("unknown names in deny lists", () => {
  it("are blocking errors with the list's path, not warnings", () => {
    const check = checkDraft({ tools: { deny: ["exce", "read"] }, teams: { ops: { deny: ["wirte"] } } }, TOOLS);
    expect(check.unknownDenies).toHaveLength(2);
    expect(check.unknownDenies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: "teams.ops.deny", entries: ["wirte"] }),
        expect.objectContaining({ path: "tools.deny", entries: ["exce"] }),
      ]),
    );
    expect(check.unknownDenies[0]!.message).toMatch(/denies nothing/);
    // Not reported twice.
    expect(check.warnings.filter((w) => w.code === "unknown_entry")).toEqual([]);
  });

  it("groups, wildcards that match a tool and plugin ids are not unknown", () => {
    expect(checkDraft({ tools: { deny: ["group:fs", "mem*", "github"] } }, TOOLS).unknownDenies).toEqual([]);
  });

  it("a wildcard that matches nothing is unknown", () => {
    expect(checkDraft({ tools: { deny: ["zzz*"] } }, TOOLS).unknownDenies.map((d) => d.entries)).toEqual([["zzz*"]]);
  });

  it("allow lists keep warnings", () => {
    const check = checkDraft({ tools: { allow: ["raed", "read"] } }, TOOLS);
    expect(check.unknownDenies).toEqual([]);
    expect(check.warnings.find((w) => w.code === "unknown_entry")?.entries).toEqual(["raed"]);
  });
});
