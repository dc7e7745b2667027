// A row id at the start of a test name (a letter and a number) names a row of docs/requirements.md.
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { resolveEffectiveToolPolicy, TOOL_MODES, ToolRegistry, type ToolMode } from "@/lib/policy";
import { ctx, doc, tool } from "./fixtures";

function builtins() {
  const logger = { warn: vi.fn() };
  const registry = new ToolRegistry({ logger });
  registry.register(tool("current_time", ["chat_safe", "coding"], { group: "world" }));
  registry.register(tool("memory_search", ["chat_safe", "coding"], { group: "memory" }));
  registry.register(
    tool("read", ["coding"], {
      group: "code",
      inputSchema: z.object({ path: z.string().min(1), offset: z.number().int().optional() }),
    }),
  );
  return { registry, logger };
}

const names = (list: Array<{ name: string }>) => list.map((t) => t.name);
const schemaNames = (registry: ToolRegistry, mode: ToolMode) =>
  registry.getToolsSchema(mode).map((s) => s.function.name);

describe("tool modes: registry and mode gate", () => {
  it("A1 current_time is allowed in chat_safe", () => {
    expect(builtins().registry.checkMode("current_time", "chat_safe")).toBe(true);
  });

  it("A2 memory_search is allowed in chat_safe", () => {
    expect(builtins().registry.checkMode("memory_search", "chat_safe")).toBe(true);
  });

  it("A3 read is not in the chat_safe schema (exposure gate)", () => {
    const { registry } = builtins();
    expect(schemaNames(registry, "chat_safe")).toEqual(["current_time", "memory_search"]);
  });

  it("A4 read is denied in chat_safe (execution gate)", () => {
    expect(builtins().registry.checkMode("read", "chat_safe")).toBe(false);
  });

  it("A9 read is visible and executable in coding", () => {
    const { registry } = builtins();
    expect(registry.checkMode("read", "coding")).toBe(true);
    expect(schemaNames(registry, "coding")).toEqual(["current_time", "memory_search", "read"]);
  });

  it("A10 the prompt's tool list and the schemas come from the same filtered list (data side)", () => {
    const { registry } = builtins();
    for (const mode of TOOL_MODES) expect(names(registry.listTools(mode))).toEqual(schemaNames(registry, mode));
    const policy = resolveEffectiveToolPolicy(ctx({ mode: "chat_safe" }), { document: doc(), tools: registry.meta() });
    expect(names(registry.listToolsFor(policy))).toEqual(
      registry.getToolsSchemaFor(policy).map((s) => s.function.name),
    );
    expect(names(registry.listToolsFor(policy))).toEqual([...policy.allowedTools]);
  });

  it("F1 every tool × mode combination matches the admission matrix", () => {
    const { registry } = builtins();
    const matrix: Record<string, Record<ToolMode, boolean>> = {
      current_time: { chat_safe: true, coding: true },
      memory_search: { chat_safe: true, coding: true },
      read: { chat_safe: false, coding: true },
    };
    for (const [name, row] of Object.entries(matrix)) {
      for (const mode of TOOL_MODES)
        expect([name, mode, registry.checkMode(name, mode)]).toEqual([name, mode, row[mode]]);
    }
  });

  it("F2 an override tightens; a loosening override throws; effective = declared ∩ override", () => {
    const { registry } = builtins();
    expect(registry.getEffectiveModes("current_time")).toEqual(["chat_safe", "coding"]);
    registry.setModeOverride("current_time", ["coding"]);
    expect(registry.getEffectiveModes("current_time")).toEqual(["coding"]);
    expect(registry.checkMode("current_time", "chat_safe")).toBe(false);
    expect(() => registry.setModeOverride("read", ["chat_safe"])).toThrow(/loosen/);
    expect(registry.getEffectiveModes("read")).toEqual(["coding"]);
  });

  it("F3 checkMode over registered/unregistered names and valid/invalid modes", () => {
    const { registry } = builtins();
    expect(registry.checkMode("read", "coding")).toBe(true);
    expect(registry.checkMode("read", "chat_safe")).toBe(false);
    expect(registry.checkMode("nonexistent_tool", "coding")).toBe(false);
    expect(registry.checkMode("nonexistent_tool", "chat_safe")).toBe(false);
    expect(registry.checkMode("read", "admin" as ToolMode)).toBe(false);
    expect(registry.checkMode(" READ ", "coding")).toBe(true);
  });

  it("F4 schemas use the OpenAI function format with parameters from the zod schema", () => {
    const { registry } = builtins();
    const read = registry.getToolsSchema("coding").find((s) => s.function.name === "read");
    expect(read).toEqual({
      type: "function",
      function: {
        name: "read",
        description: "read tool",
        // Constraints stay for OpenAI/Anthropic-style providers; only the Gemini profile strips them (below).
        parameters: {
          type: "object",
          properties: {
            path: { type: "string", minLength: 1 },
            offset: { type: "integer", minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
          },
          required: ["path"],
        },
      },
    });
  });

  it("schemas for a Gemini context drop the keywords Gemini rejects; other providers keep them; each profile is cached", () => {
    const { registry } = builtins();
    const policyFor = (provider: string, model?: string) => ({ allowedTools: ["read"], context: { provider, model } });
    const gemini = registry.getToolsSchemaFor(policyFor("google"))[0]!.function.parameters;
    expect(gemini).toEqual({
      type: "object",
      properties: { path: { type: "string" }, offset: { type: "integer" } },
      required: ["path"],
    });
    expect(registry.getToolsSchemaFor(policyFor("openrouter", "google/gemini-2.5-pro"))[0]!.function.parameters).toBe(
      gemini,
    );
    const openai = registry.getToolsSchemaFor(policyFor("openai"))[0]!.function.parameters;
    expect(openai.properties).toMatchObject({ path: { minLength: 1 } });
    expect(registry.getToolsSchemaFor(policyFor("anthropic"))[0]!.function.parameters).toBe(openai);
  });

  it("F5 listTools(mode) and getToolsSchema(mode) filter identically", () => {
    const { registry } = builtins();
    registry.setModeOverride("memory_search", ["coding"]);
    for (const mode of TOOL_MODES) {
      expect(new Set(names(registry.listTools(mode)))).toEqual(new Set(schemaNames(registry, mode)));
    }
  });

  it("E1 a tool without allowedModes is invisible and not executable in every mode", () => {
    const { registry } = builtins();
    registry.register(tool("undeclared"));
    registry.register(tool("declared_empty", []));
    for (const mode of TOOL_MODES) {
      expect(registry.checkMode("undeclared", mode)).toBe(false);
      expect(registry.checkMode("declared_empty", mode)).toBe(false);
      expect(schemaNames(registry, mode)).not.toContain("undeclared");
    }
  });

  it("E2 checkMode of an unregistered name is false and getEffectiveModes is empty", () => {
    const { registry } = builtins();
    expect(registry.checkMode("write_file", "coding")).toBe(false);
    expect(registry.getEffectiveModes("write_file")).toEqual([]);
  });

  it("E3 an invalid mode yields no tools and no schemas", () => {
    const { registry } = builtins();
    expect(registry.listTools("root" as ToolMode)).toEqual([]);
    expect(registry.getToolsSchema(undefined as unknown as ToolMode)).toEqual([]);
  });

  it("E4 overriding an unregistered tool throws", () => {
    expect(() => builtins().registry.setModeOverride("ghost", ["coding"])).toThrow(/unregistered/);
  });

  it("E5 the last override wins (within the declared modes)", () => {
    const { registry } = builtins();
    registry.setModeOverride("current_time", ["coding"]);
    registry.setModeOverride("current_time", ["chat_safe"]);
    expect(registry.getEffectiveModes("current_time")).toEqual(["chat_safe"]);
    registry.setModeOverride("current_time", []);
    expect(registry.getEffectiveModes("current_time")).toEqual([]);
  });

  it("O2 registering a tool with default modes warns tool_registered_with_default_modes", () => {
    const { registry, logger } = builtins();
    expect(logger.warn).not.toHaveBeenCalled();
    registry.register(tool("legacy"));
    expect(logger.warn).toHaveBeenCalledWith("tool_registered_with_default_modes", { tool: "legacy" });
    expect(registry.warnings.map((w) => [w.code, w.entries])).toEqual([
      ["tool_registered_with_default_modes", ["legacy"]],
    ]);
  });

  it("O2 without an injected logger the warning goes to console.warn", () => {
    const spy = vi.spyOn(console, "warn").mockImplementation(() => {});
    try {
      new ToolRegistry().register(tool("legacy"));
      expect(spy).toHaveBeenCalledWith(expect.stringContaining("tool_registered_with_default_modes"));
    } finally {
      spy.mockRestore();
    }
  });

  it("rejects duplicate names (after normalization) and finds tools by alias", () => {
    const { registry } = builtins();
    expect(() => registry.register(tool(" Read ", ["coding"]))).toThrow(/already registered/);
    registry.register(tool("exec", ["coding"]));
    expect(registry.get("bash")?.name).toBe("exec");
    expect(names(registry.all())).toEqual(["current_time", "memory_search", "read", "exec"]);
  });

  it("meta() carries registry overrides into the effective policy and changes identity when the registry changes", () => {
    const { registry } = builtins();
    const before = registry.meta();
    expect(registry.meta()).toBe(before);
    registry.setModeOverride("memory_search", ["coding"]);
    const after = registry.meta();
    expect(after).not.toBe(before);
    const policy = resolveEffectiveToolPolicy(ctx({ mode: "chat_safe" }), { document: doc(), tools: after });
    expect(policy.check("memory_search")).toMatchObject({ allowed: false, layer: "mode", errorCode: "MODE_DENIED" });
  });
});
