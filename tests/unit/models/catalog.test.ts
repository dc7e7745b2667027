// Issue 32: MODELS is the one list of models; MODEL_PROVIDER/MODEL_NAME is a one-entry list. Bad lists stop start-up
// with the entry named; an agent's `model` limits which entries it runs on.
import { describe, expect, it } from "vitest";
import { agentAllowsModel, findModel, modelEntry, modelsForAgent, parseModelList } from "@/lib/models/catalog";
import { parseConfig } from "@/lib/config";
import { configProblems } from "../../support/config-problems";

describe("model list", () => {
  it("parses provider:model entries in order; the offline model may omit its name", () => {
    const { entries, problems: found } = parseModelList(
      "offline, openai:gpt-4o-mini,anthropic:claude-sonnet-4-5 ,openai-compatible:llama3.1:8b",
    );
    expect(found).toEqual([]);
    expect(entries.map((e) => e.id)).toEqual([
      "offline",
      "openai:gpt-4o-mini",
      "anthropic:claude-sonnet-4-5",
      "openai-compatible:llama3.1:8b",
    ]);
    expect(entries[3]).toEqual({
      id: "openai-compatible:llama3.1:8b",
      provider: "openai-compatible",
      model: "llama3.1:8b",
    });
  });

  it("names every bad entry: unknown provider, missing model, odd characters, duplicates, empty entries", () => {
    for (const bad of [
      "",
      " , ",
      "gpt:x",
      "openai",
      "openai:",
      "openai:a b",
      "openai:../x",
      "openai:x,openai:x",
      "offline,,openai:x",
      "OPENAI:x",
      "__proto__:x",
      "constructor",
    ]) {
      expect(parseModelList(bad).problems.length, JSON.stringify(bad)).toBeGreaterThan(0);
    }
    expect(parseModelList(Array.from({ length: 33 }, (_, i) => `openai:m${i}`).join(",")).problems).toContain(
      "MODELS: at most 32 models",
    );
  });

  it("finds an entry by its exact id only", () => {
    const { entries } = parseModelList("offline,openai:gpt-4o-mini");
    expect(findModel(entries, "openai:gpt-4o-mini")?.provider).toBe("openai");
    for (const near of [
      "openai",
      "OPENAI:gpt-4o-mini",
      "openai:gpt-4o-mini ",
      "gpt-4o-mini",
      "openai/gpt-4o-mini",
      "constructor",
      "toString",
    ])
      expect(findModel(entries, near), near).toBeNull();
  });

  it("an agent's model names a provider, a provider's model or a bare model name; none allows every entry", () => {
    const entries = parseModelList("offline,openai:gpt-4o-mini,openai:gpt-4.1,anthropic:claude-sonnet-4-5").entries;
    expect(modelsForAgent(entries, undefined).length).toBe(4);
    expect(modelsForAgent(entries, "openai").map((e) => e.id)).toEqual(["openai:gpt-4o-mini", "openai:gpt-4.1"]);
    expect(modelsForAgent(entries, "openai/gpt-4.1").map((e) => e.id)).toEqual(["openai:gpt-4.1"]);
    expect(modelsForAgent(entries, "OpenAI:GPT-4.1").map((e) => e.id)).toEqual(["openai:gpt-4.1"]);
    expect(modelsForAgent(entries, "claude-sonnet-4-5").map((e) => e.id)).toEqual(["anthropic:claude-sonnet-4-5"]);
    expect(modelsForAgent(entries, "gpt-5")).toEqual([]);
    // A provider's name never matches another provider's model of the same name.
    expect(agentAllowsModel("openai", modelEntry("openai-compatible", "openai"))).toBe(true);
    expect(agentAllowsModel("anthropic", modelEntry("openai", "gpt-4o-mini"))).toBe(false);
  });
});

describe("MODELS in the configuration", () => {
  it("without MODELS the list is MODEL_PROVIDER/MODEL_NAME (default offline)", () => {
    expect(parseConfig({}).models).toEqual([{ id: "offline", provider: "offline", model: undefined }]);
    expect(parseConfig({ MODEL_PROVIDER: "openai", OPENAI_API_KEY: "k" }).models.map((m) => m.id)).toEqual([
      "openai:gpt-4o-mini",
    ]);
  });

  it("with MODELS every listed provider needs its key or base URL, and the first entry is the default", () => {
    const c = parseConfig({ MODELS: "openai:gpt-4o-mini,offline", OPENAI_API_KEY: "k" });
    expect(c.models.map((m) => m.id)).toEqual(["openai:gpt-4o-mini", "offline"]);
    expect(c.MODEL_PROVIDER).toBe("openai");
    expect(c.MODEL_NAME).toBe("gpt-4o-mini");
    expect(configProblems({ MODELS: "offline,anthropic:claude-sonnet-4-5" }).join("\n")).toContain("ANTHROPIC_API_KEY");
    expect(configProblems({ MODELS: "openai-compatible:llama3.1" }).join("\n")).toContain("OPENAI_COMPATIBLE_BASE_URL");
    expect(
      configProblems({
        MODELS: "offline,openai-compatible:llama3.1",
        OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:11434/v1",
      }),
    ).toEqual([]);
  });

  it("refuses MODELS together with MODEL_PROVIDER or MODEL_NAME, a base URL of an unlisted provider, and a bad list", () => {
    expect(configProblems({ MODELS: "offline", MODEL_PROVIDER: "offline" }).join("\n")).toContain("MODELS");
    expect(configProblems({ MODELS: "offline", MODEL_NAME: "x" }).join("\n")).toContain("MODELS");
    expect(configProblems({ MODELS: "offline", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }).join("\n")).toContain(
      "OPENAI_BASE_URL",
    );
    expect(configProblems({ MODELS: "offline,gpt:x" }).join("\n")).toContain('unknown provider "gpt"');
  });
});
