// Rows A1-A4, A9-A11, F1-F5, E1-E5 and O2 of docs/requirements.md over the real built-in registry and policy engine.
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { buildSystemPrompt, exposedTools, layerSafety, layerTooling } from "@/lib/runs/prompt";
import { getToolRegistry } from "@/lib/tools/tool-catalog";
import { checkToolCall } from "@/lib/runs/gate";
import {
  resolveEffectiveToolPolicy,
  DEFAULT_POLICY_DOCUMENT,
  TOOL_MODES,
  ToolRegistry,
  type ToolDefinition,
  type ToolMode,
} from "@/lib/policy";
import { BUILTIN_TOOLS, registerBuiltinTools } from "@/lib/tools/builtin";
import { CHAT_SAFE_TOOLS, CODING_ONLY_TOOLS, documentOf, namesInToolingLayer, policyFor } from "./support/policy";

const quiet = { warn: () => undefined };
function freshRegistry(): ToolRegistry<ToolDefinition> {
  const r = new ToolRegistry<ToolDefinition>({ logger: quiet });
  registerBuiltinTools(r);
  return r;
}

describe("mode gate over the built-in registry (A rows)", () => {
  const registry = getToolRegistry();

  it("A1 current_time is allowed in chat_safe", () => {
    expect(registry.checkMode("current_time", "chat_safe")).toBe(true);
    expect(policyFor("chat_safe").policy.check("current_time").allowed).toBe(true);
  });

  it("A2 memory_search is allowed in chat_safe", () => {
    expect(registry.checkMode("memory_search", "chat_safe")).toBe(true);
    expect(policyFor("chat_safe").policy.check("memory_search").allowed).toBe(true);
  });

  it("A3 read is not in the chat_safe schema (exposure gate)", () => {
    const names = registry.getToolsSchema("chat_safe").map((s) => s.function.name);
    expect(names).not.toContain("read");
    const exposed = registry.getToolsSchemaFor(policyFor("chat_safe").policy).map((s) => s.function.name);
    expect(exposed).not.toContain("read");
    expect(exposed).toContain("current_time");
  });

  it("A4 read is denied in chat_safe (execution gate check)", () => {
    expect(registry.checkMode("read", "chat_safe")).toBe(false);
    const decision = policyFor("chat_safe").policy.check("read");
    expect(decision).toMatchObject({ allowed: false, errorCode: "MODE_DENIED", layer: "mode" });
  });

  it("A9 read is visible and allowed in coding", () => {
    expect(registry.checkMode("read", "coding")).toBe(true);
    expect(registry.getToolsSchema("coding").map((s) => s.function.name)).toContain("read");
    const { policy } = policyFor("coding");
    expect(policy.check("read").allowed).toBe(true);
    expect(exposedTools(policy, registry).map((t) => t.name)).toContain("read");
  });

  it.each(TOOL_MODES)("A10 tooling layer == exposed tools == schema names in %s, from the same call", (mode) => {
    const { policy } = policyFor(mode);
    const { system, tools } = buildSystemPrompt({ mode, policy, registry });
    const listed = namesInToolingLayer(system);
    const given = tools.map((t) => t.name);
    const schemas = registry.getToolsSchemaFor(policy).map((s) => s.function.name);
    expect(listed).toEqual(given);
    expect(schemas).toEqual(given);
    expect(new Set(given)).toEqual(new Set(policy.allowedTools));
    // Not vacuous: chat_safe lists the safe tools only, coding adds the file tools.
    if (mode === "chat_safe") expect([...given].sort()).toEqual([...CHAT_SAFE_TOOLS].sort());
    else expect(given).toEqual(expect.arrayContaining(["read", "write", "exec"]));
  });

  it("A10 the tooling layer of an empty tool set says so and lists nothing", () => {
    expect(namesInToolingLayer(layerTooling([]))).toEqual([]);
    expect(layerTooling([])).toMatch(/No tools are available/);
  });

  it("A11 the safety layer names the mode and each unavailable tool with why", () => {
    const { policy } = policyFor("chat_safe");
    const text = layerSafety("chat_safe", policy);
    expect(text).toContain("chat_safe");
    for (const name of CODING_ONLY_TOOLS) expect(text).toMatch(new RegExp(`- ${name}: MODE_DENIED \\(.+\\)`));
    for (const name of CHAT_SAFE_TOOLS) expect(text).not.toMatch(new RegExp(`- ${name}:`));
    const coding = layerSafety("coding", policyFor("coding").policy);
    expect(coding).toContain("coding mode");
    expect(coding).not.toMatch(/- read:/);
  });
});

describe("registry behaviour (F rows)", () => {
  it("F1 every built-in × every mode matches the admission matrix", () => {
    const registry = getToolRegistry();
    const matrix: Record<ToolMode, string[]> = {
      chat_safe: CHAT_SAFE_TOOLS,
      coding: [...CHAT_SAFE_TOOLS, ...CODING_ONLY_TOOLS],
    };
    for (const tool of BUILTIN_TOOLS) {
      for (const mode of TOOL_MODES) {
        expect({ tool: tool.name, mode, allowed: registry.checkMode(tool.name, mode) }).toEqual({
          tool: tool.name,
          mode,
          allowed: matrix[mode].includes(tool.name),
        });
      }
    }
  });

  it("F2 an override intersects: none = declared, subset = override, loosening throws", () => {
    const registry = freshRegistry();
    expect(registry.getEffectiveModes("current_time")).toEqual(["chat_safe", "coding"]);
    registry.setModeOverride("current_time", ["coding"]);
    expect(registry.getEffectiveModes("current_time")).toEqual(["coding"]);
    expect(registry.checkMode("current_time", "chat_safe")).toBe(false);
    expect(() => registry.setModeOverride("read", ["chat_safe", "coding"])).toThrow(/loosen/);
    expect(registry.checkMode("read", "chat_safe")).toBe(false);
  });

  it("F2 a document mode override tightens the effective policy and cannot loosen it", () => {
    const tightened = documentOf({ modeOverrides: { memory_search: ["coding"] } });
    expect(policyFor("chat_safe", { document: tightened }).policy.check("memory_search")).toMatchObject({
      allowed: false,
      errorCode: "MODE_DENIED",
    });
    const loosening = documentOf({ modeOverrides: { read: ["chat_safe", "coding"] } });
    expect(policyFor("chat_safe", { document: loosening }).policy.check("read").allowed).toBe(false);
  });

  it("F3 checkMode: registered+allowed, registered+not allowed, unregistered, in both modes", () => {
    const registry = getToolRegistry();
    const rows = TOOL_MODES.flatMap((mode) => [
      [mode, "current_time", registry.checkMode("current_time", mode)],
      [mode, "read", registry.checkMode("read", mode)],
      [mode, "no_such_tool", registry.checkMode("no_such_tool", mode)],
    ]);
    expect(rows).toEqual([
      ["chat_safe", "current_time", true],
      ["chat_safe", "read", false],
      ["chat_safe", "no_such_tool", false],
      ["coding", "current_time", true],
      ["coding", "read", true],
      ["coding", "no_such_tool", false],
    ]);
  });

  it.each(TOOL_MODES)("F4 getToolsSchema(%s) is OpenAI function-calling shaped", (mode) => {
    const schemas = getToolRegistry().getToolsSchema(mode);
    expect(schemas.length).toBeGreaterThan(0);
    for (const s of schemas) {
      expect(s.type).toBe("function");
      expect(s.function.name).toMatch(/^[a-z0-9_]+$/);
      expect(s.function.description.length).toBeGreaterThan(0);
      expect(s.function.parameters).toMatchObject({ type: "object" });
      expect(s.function.parameters).not.toHaveProperty("anyOf");
      expect(s.function.parameters).not.toHaveProperty("oneOf");
    }
  });

  it.each(TOOL_MODES)("F5 listTools(%s) and getToolsSchema agree", (mode) => {
    const registry = getToolRegistry();
    expect(registry.listTools(mode).map((t) => t.name)).toEqual(
      registry.getToolsSchema(mode).map((s) => s.function.name),
    );
  });
});

describe("edges (E rows) and the registration warning (O2)", () => {
  const bare: ToolDefinition = {
    name: "bare_tool",
    description: "declares no modes",
    inputSchema: z.object({}),
    execute: () => "ran",
  };

  it("E1 a tool with default (empty) allowedModes is invisible and not executable in every mode", () => {
    const registry = freshRegistry();
    registry.register(bare);
    const document = DEFAULT_POLICY_DOCUMENT;
    for (const mode of TOOL_MODES) {
      expect(registry.checkMode("bare_tool", mode)).toBe(false);
      expect(registry.listTools(mode).map((t) => t.name)).not.toContain("bare_tool");
      const policy = resolveEffectiveToolPolicy(
        { roles: ["member", "owner"], senderIsOwner: true, mode, senderId: "u" },
        { document, tools: registry.meta() },
      );
      expect(registry.listToolsFor(policy).map((t) => t.name)).not.toContain("bare_tool");
      const verdict = checkToolCall({
        policy,
        registry,
        toolName: "bare_tool",
        input: {},
        grantedModes: ["chat_safe", "coding"],
      });
      expect(verdict).toMatchObject({ verdict: "deny", denial: { error_code: "MODE_DENIED" } });
    }
  });

  it("E2 checkMode of an unregistered name is false", () => {
    expect(getToolRegistry().checkMode("nonexistent_tool", "chat_safe")).toBe(false);
  });

  it("E3 an invalid mode value gives no tools, and the effective policy falls back to chat_safe", () => {
    const registry = getToolRegistry();
    expect(registry.listTools("admin" as ToolMode)).toEqual([]);
    expect(registry.getToolsSchema("admin" as ToolMode)).toEqual([]);
    expect(registry.checkMode("current_time", "admin" as ToolMode)).toBe(false);
    const policy = resolveEffectiveToolPolicy(
      { roles: ["member", "owner"], senderIsOwner: true, mode: "admin" as ToolMode },
      { document: DEFAULT_POLICY_DOCUMENT, tools: registry.meta() },
    );
    expect(policy.mode).toBe("chat_safe");
    expect(policy.check("read").allowed).toBe(false);
  });

  it("E4 overriding an unregistered tool throws", () => {
    expect(() => freshRegistry().setModeOverride("ghost", ["chat_safe"])).toThrow(/unregistered/);
  });

  it("E5 the last override wins", () => {
    const registry = freshRegistry();
    registry.setModeOverride("current_time", ["coding"]);
    registry.setModeOverride("current_time", ["chat_safe"]);
    expect(registry.getEffectiveModes("current_time")).toEqual(["chat_safe"]);
    expect(registry.meta().find((m) => m.name === "current_time")?.allowedModes).toEqual(["chat_safe"]);
  });

  it("O2 registering a tool without allowedModes warns; the built-ins do not", () => {
    const warned: Array<[string, Record<string, unknown>]> = [];
    const registry = new ToolRegistry<ToolDefinition>({ logger: { warn: (id, data) => warned.push([id, data]) } });
    registerBuiltinTools(registry);
    expect(warned).toEqual([]);
    registry.register(bare);
    expect(warned).toEqual([["tool_registered_with_default_modes", { tool: "bare_tool" }]]);
    expect(registry.warnings.map((w) => w.code)).toEqual(["tool_registered_with_default_modes"]);
  });
});
