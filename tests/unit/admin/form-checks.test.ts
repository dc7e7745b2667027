// The checks the agents, profiles and providers forms run as you type (issue 33).
import { describe, expect, it } from "vitest";
import {
  fieldProblem,
  linesOf,
  newIdProblem,
  profileUses,
  providerKeyProblem,
  secretNameProblem,
  toolListNote,
  unknownToolEntries,
} from "@/lib/admin/form-checks";
import { AgentConfigSchema } from "@/lib/policy";
import { doc, TOOLS } from "./fixtures";

describe("form checks", () => {
  it("tool lists: names, groups, wildcards and plugin groups pass; a typo is named", () => {
    expect(unknownToolEntries(["read", "group:fs", "memory_*", "github", "group:plugins", "*", "bash"], TOOLS)).toEqual(
      [],
    );
    expect(unknownToolEntries(["exce", "read", "zz*"], TOOLS)).toEqual(["exce", "zz*"]);
    expect(toolListNote(["exce"], TOOLS)).toBe(
      '"exce" matches no tool or group: check the spelling (it is kept, and matches nothing)',
    );
    expect(toolListNote(["read"], TOOLS)).toBeUndefined();
  });

  it("fields use the document's own schema", () => {
    expect(fieldProblem(AgentConfigSchema.shape.name, "  ")).toBeDefined();
    expect(fieldProblem(AgentConfigSchema.shape.name, "Coder")).toBeUndefined();
    expect(
      fieldProblem(
        AgentConfigSchema.shape.starters,
        Array.from({ length: 9 }, (_, i) => `p${i}`),
      ),
    ).toMatch(/8/);
    expect(fieldProblem(AgentConfigSchema.shape.starters, ["x".repeat(301)])).toMatch(/300/);
    expect(linesOf(" a \n\n b\n")).toEqual(["a", "b"]);
  });

  it("new ids: present, plain, not taken, not __proto__, not a built-in profile", () => {
    expect(newIdProblem("", { taken: [], kind: "agent" })).toBe("give the agent an id");
    expect(newIdProblem("a b", { taken: [], kind: "agent" })).toMatch(/letters, digits/);
    expect(newIdProblem("coder", { taken: ["coder"], kind: "agent" })).toBe('there is already an agent "coder"');
    expect(newIdProblem("__proto__", { taken: [], kind: "agent" })).toBeDefined();
    expect(newIdProblem("coding", { taken: [], kind: "profile", builtinProfiles: true })).toBe(
      '"coding" is a built-in profile',
    );
    expect(newIdProblem("coding", { taken: [], kind: "agent" })).toBeUndefined();
  });

  it("provider keys: provider or provider/model, no spaces, not taken", () => {
    expect(providerKeyProblem("openai", [])).toBeUndefined();
    expect(providerKeyProblem("openai/gpt-4o", [])).toBeUndefined();
    expect(providerKeyProblem("openai/", [])).toMatch(/both parts/);
    expect(providerKeyProblem("open ai", [])).toMatch(/no spaces/);
    expect(providerKeyProblem("openai", ["openai"])).toMatch(/already/);
  });

  it("profile uses: global, per provider and per agent", () => {
    const d = doc({
      profiles: { team: { allow: ["read"] } },
      tools: { profile: "team", byProvider: { openai: { profile: "team" } } },
      agents: { a: { name: "A", tools: { profile: "team" } } },
    });
    expect(profileUses(d, "team")).toEqual([
      "tools.profile",
      "tools.byProvider.openai.profile",
      "agents.a.tools.profile",
    ]);
    expect(profileUses(d, "other")).toEqual([]);
  });

  it("MCP env and header names: well-formed, not taken (header names ignore case)", () => {
    expect(secretNameProblem("API_TOKEN", { kind: "env", taken: ["LOG"] })).toBeUndefined();
    expect(secretNameProblem("", { kind: "env", taken: [] })).toBe("give the variable a name");
    expect(secretNameProblem("1TOKEN", { kind: "env", taken: [] })).toMatch(/not starting with a digit/);
    expect(secretNameProblem("API-TOKEN", { kind: "env", taken: [] })).toMatch(/letters, digits and _ only/);
    expect(secretNameProblem("LOG", { kind: "env", taken: ["LOG"] })).toBe('"LOG" is already set');
    expect(secretNameProblem("log", { kind: "env", taken: ["LOG"] })).toBeUndefined();
    expect(secretNameProblem("X-Api-Key", { kind: "headers", taken: [] })).toBeUndefined();
    expect(secretNameProblem("Bad: header", { kind: "headers", taken: [] })).toMatch(/no spaces or separators/);
    expect(secretNameProblem("authorization", { kind: "headers", taken: ["Authorization"] })).toBe(
      '"authorization" is already set',
    );
    expect(secretNameProblem("__proto__", { kind: "env", taken: [] })).toBe('"__proto__" cannot be a name');
  });
});
