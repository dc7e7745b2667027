// The tool registry: holds tool definitions, applies the mode gate (with tighten-only overrides) and renders the
// provider schemas the model is shown. Schemas for an effective policy come from the same list, so prompt,
// schema and execution gate agree.
import { z } from "zod";
import { computeEffectiveModes, findLoosenedModes, isToolMode } from "./modes";
import { isOwnerOnlyTool, normalizeToolName } from "./names";
import { normalizeToolParameters, schemaProfileFor, type SchemaProfile } from "./schema-normalize";
import type { PolicyWarning, ToolDefinition, ToolMeta, ToolMode } from "./types";

export type ToolSchema = {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
};

export type RegistryLogger = { warn: (id: string, data: Record<string, unknown>) => void };

const consoleLogger: RegistryLogger = {
  warn: (id, data) => console.warn(JSON.stringify({ level: "warn", msg: id, ...data })),
};

/** Anything with an ordered allowedTools list: an EffectiveToolPolicy (its context's provider/model pick the
 * schema profile: Gemini gets its reduced schemas, every other provider keeps constraints). */
export type AllowedToolList = { allowedTools: readonly string[]; context?: { provider?: string; model?: string } };

export class ToolRegistry<T extends ToolDefinition = ToolDefinition> {
  readonly warnings: PolicyWarning[] = [];
  private readonly tools = new Map<string, T>();
  private readonly overrides = new Map<string, ToolMode[]>();
  private readonly schemaCache = new Map<string, ToolSchema>();
  private metaCache: ToolMeta[] | undefined;
  private readonly logger: RegistryLogger;

  constructor(options: { logger?: RegistryLogger } = {}) {
    this.logger = options.logger ?? consoleLogger;
  }

  register(tool: T): void {
    const name = normalizeToolName(tool.name);
    if (!name) throw new Error("A tool needs a non-empty name");
    if (this.tools.has(name)) throw new Error(`Tool "${name}" is already registered`);
    if (!tool.allowedModes || tool.allowedModes.length === 0) {
      // Not an error: fail-closed keeps it unavailable, but a developer most likely forgot the declaration.
      const warning: PolicyWarning = {
        code: "tool_registered_with_default_modes",
        message: `Tool "${name}" declares no allowedModes, so it is unavailable in every mode`,
        entries: [name],
      };
      this.warnings.push(warning);
      this.logger.warn("tool_registered_with_default_modes", { tool: name });
    }
    this.tools.set(name, tool);
    this.metaCache = undefined;
  }

  /** Removes a tool (plugin tools of a server no longer configured). Returns whether it was registered. */
  unregister(toolName: string): boolean {
    const name = normalizeToolName(toolName);
    if (!this.tools.delete(name)) return false;
    this.overrides.delete(name);
    for (const profile of ["default", "gemini"] as const) this.schemaCache.delete(`${profile}:${name}`);
    this.metaCache = undefined;
    return true;
  }

  /** Tighten-only: every mode named must be one the tool itself declares. The latest override replaces earlier ones. */
  setModeOverride(toolName: string, modes: readonly ToolMode[]): void {
    const name = normalizeToolName(toolName);
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`Cannot override modes of unregistered tool "${name}"`);
    const invalid = modes.filter((mode) => !isToolMode(mode));
    if (invalid.length > 0) throw new Error(`Unknown mode(s) ${invalid.join(", ")} in override for "${name}"`);
    const loosened = findLoosenedModes(tool.allowedModes, modes);
    if (loosened.length > 0) {
      throw new Error(`Override for "${name}" would loosen it: ${loosened.join(", ")} is not among its allowedModes`);
    }
    this.overrides.set(name, [...modes]);
    this.metaCache = undefined;
  }

  get(toolName: string): T | undefined {
    return this.tools.get(normalizeToolName(toolName));
  }

  all(): T[] {
    return [...this.tools.values()];
  }

  getEffectiveModes(toolName: string): ToolMode[] {
    const name = normalizeToolName(toolName);
    const tool = this.tools.get(name);
    return tool ? computeEffectiveModes(tool.allowedModes, this.overrides.get(name)) : [];
  }

  checkMode(toolName: string, mode: ToolMode): boolean {
    if (!isToolMode(mode)) return false;
    return this.getEffectiveModes(toolName).includes(mode);
  }

  listTools(mode: ToolMode): T[] {
    if (!isToolMode(mode)) return [];
    return this.all().filter((tool) => this.checkMode(tool.name, mode));
  }

  getToolsSchema(mode: ToolMode): ToolSchema[] {
    return this.listTools(mode).map((tool) => this.schemaOf(tool));
  }

  /** Tools an effective policy allows, in registration order: the exposure gate and the prompt's tool list. */
  listToolsFor(policy: AllowedToolList): T[] {
    return policy.allowedTools.flatMap((name) => {
      const tool = this.tools.get(name);
      return tool ? [tool] : [];
    });
  }

  getToolsSchemaFor(policy: AllowedToolList): ToolSchema[] {
    const profile = schemaProfileFor(policy.context?.provider, policy.context?.model);
    return this.listToolsFor(policy).map((tool) => this.schemaOf(tool, profile));
  }

  /** Policy-engine view with registry overrides already applied; stable identity until the registry changes. */
  meta(): ToolMeta[] {
    this.metaCache ??= this.all().map((tool) => ({
      name: normalizeToolName(tool.name),
      group: tool.group ?? "code",
      allowedModes: this.getEffectiveModes(tool.name),
      ownerOnly: isOwnerOnlyTool(tool),
      ...(tool.pluginId ? { pluginId: tool.pluginId } : {}),
      ...(tool.requiresApproval ? { requiresApproval: true } : {}),
    }));
    return this.metaCache;
  }

  private schemaOf(tool: T, profile: SchemaProfile = "default"): ToolSchema {
    const name = normalizeToolName(tool.name);
    const key = `${profile}:${name}`;
    let schema = this.schemaCache.get(key);
    if (!schema) {
      const parameters = normalizeToolParameters(
        z.toJSONSchema(tool.inputSchema, { io: "input", unrepresentable: "any" }),
        { profile },
      );
      schema = { type: "function", function: { name, description: tool.description, parameters } };
      this.schemaCache.set(key, schema);
    }
    return schema;
  }
}
