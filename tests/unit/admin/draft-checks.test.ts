import { describe, expect, it } from "vitest";
import { checkDraft } from "@/lib/admin/draft-checks";
import { TOOLS } from "./fixtures";

describe("draft checks", () => {
  it("returns schema issues with paths", () => {
    const check = checkDraft({ tools: { deny: "exec" }, bogus: 1 }, TOOLS);
    expect(check.document).toBeUndefined();
    expect(check.issues.map((i) => i.path).sort()).toEqual(["bogus", "tools.deny"]);
  });

  it("flags unknown tool names in any layer, including agents and teams", () => {
    const check = checkDraft({ tools: { deny: ["exce"] }, teams: { ops: { deny: ["wirte"] } }, agents: { bot: { name: "Bot", tools: { allow: ["raed"] } } } }, TOOLS);
    expect(check.issues).toEqual([]);
    const unknown = check.warnings.filter((w) => w.code === "unknown_entry").flatMap((w) => w.entries ?? []);
    expect(unknown).toEqual(expect.arrayContaining(["exce", "wirte", "raed"]));
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
