// Turns a server's discovered tools into registry definitions. Modes and owner-only come from the admin's
// config only (a server cannot grant itself a mode); annotations are kept, and with requireApprovalForDestructive
// every tool the server does not mark as safe asks for approval.
import { z } from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import {
  DEFAULT_MAX_READ_BYTES,
  type McpServerConfig,
  type ToolDefinition,
  type ToolExecuteOptions,
} from "@/lib/policy";
import { jsonSchemaToZod } from "./json-schema";
import { mcpToolName, sanitizeMcpToolPart } from "./naming";
import { toToolOutput } from "./output";

export type DiscoveredTool = {
  name: string;
  description?: string;
  inputSchema?: unknown;
  annotations?: ToolDefinition["annotations"];
  execution?: { taskSupport?: string };
};

export type McpToolCaller = (
  serverToolName: string,
  args: Record<string, unknown>,
  options: ToolExecuteOptions,
) => Promise<CallToolResult>;

export type McpToolDefinition = ToolDefinition<Record<string, unknown>> & {
  pluginId: string;
  serverToolName: string;
  approvalReason?: string;
  /** The input schema as the server declared it: what the gateway shows outside clients (models get it normalized). */
  serverInputSchema?: Record<string, unknown>;
};

/**
 * MCP defaults (spec): a tool is destructive unless it says readOnlyHint: true or destructiveHint: false. Annotations
 * are untrusted hints, so only the cautious direction is taken at face value.
 */
export function isDestructive(annotations: ToolDefinition["annotations"] | undefined): boolean {
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}

/** Per-tool settings are keyed by the server's tool name; the sanitized form is accepted too. */
function overrideFor(config: McpServerConfig, toolName: string) {
  const wanted = [toolName, toolName.toLowerCase(), sanitizeMcpToolPart(toolName)];
  for (const [key, value] of Object.entries(config.tools)) {
    if (wanted.includes(key) || wanted.includes(key.toLowerCase())) return value;
  }
  return undefined;
}

/** Tools that can only run as MCP tasks, which Toolgate does not drive: offering them would fail every call. */
export function requiresTasks(tool: DiscoveredTool): boolean {
  return tool.execution?.taskSupport === "required";
}

/** The per-call output cap: tool override, then server, then the run's fs read limit. */
export function outputCapFor(config: McpServerConfig, toolName: string, options: ToolExecuteOptions): number {
  const override = overrideFor(config, toolName)?.maxOutputBytes ?? config.maxOutputBytes;
  if (override !== undefined) return override;
  const limits = (options.context as { limits?: { maxReadBytes?: number } } | undefined)?.limits;
  const fsLimit = limits?.maxReadBytes;
  return typeof fsLimit === "number" && fsLimit > 0 ? fsLimit : DEFAULT_MAX_READ_BYTES;
}

/**
 * Why a plugin tool asks for approval, naming what decided it: the server's own annotation (or its absence, since
 * MCP reads a missing hint as destructive) under the admin's requireApprovalForDestructive.
 */
export function mcpApprovalReason(
  config: McpServerConfig,
  annotations: ToolDefinition["annotations"] | undefined,
): string | undefined {
  if (!config.requireApprovalForDestructive || !isDestructive(annotations)) return undefined;
  const hint =
    annotations?.destructiveHint === true
      ? "the server marks it destructiveHint: true"
      : "the server does not mark it readOnlyHint: true or destructiveHint: false (MCP treats it as destructive)";
  return `MCP server ${config.id} requires approval for destructive tools and ${hint}`;
}

export function buildMcpToolDefinitions(
  config: McpServerConfig,
  discovered: readonly DiscoveredTool[],
  call: McpToolCaller,
): { definitions: McpToolDefinition[]; skipped: string[] } {
  const definitions: McpToolDefinition[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const tool of discovered) {
    if (requiresTasks(tool)) continue;
    const name = mcpToolName(config.id, tool.name);
    if (seen.has(name)) {
      // Two server names that sanitize alike: registering either would make the other unreachable by name.
      skipped.push(tool.name);
      continue;
    }
    seen.add(name);
    const override = overrideFor(config, tool.name);
    const annotations = tool.annotations ? pickAnnotations(tool.annotations) : undefined;
    definitions.push({
      name,
      serverToolName: tool.name,
      description: tool.description?.trim() || `${tool.name} (MCP server ${config.id})`,
      inputSchema: tool.inputSchema === undefined ? z.looseObject({}) : jsonSchemaToZod(tool.inputSchema),
      ...(isJsonObject(tool.inputSchema) ? { serverInputSchema: tool.inputSchema } : {}),
      group: "plugin",
      pluginId: config.id,
      allowedModes: [...(override?.allowedModes ?? config.allowedModes)],
      ownerOnly: override?.ownerOnly ?? config.ownerOnly,
      ...(annotations ? { annotations } : {}),
      ...(override?.requireApproval
        ? {
            requiresApproval: true,
            approvalReason: `the admin requires approval for every call of ${tool.name} on MCP server ${config.id}`,
          }
        : config.requireApprovalForDestructive && isDestructive(annotations)
          ? { requiresApproval: true, approvalReason: mcpApprovalReason(config, annotations) }
          : {}),
      execute: async (input, options) =>
        toToolOutput(
          config.id,
          tool.name,
          await call(tool.name, input, options),
          outputCapFor(config, tool.name, options),
        ),
    });
  }
  return { definitions, skipped };
}

/**
 * Tools named in the config but not (yet) discovered: the server is switched off, not allowed, or unreachable.
 * Registering them keeps their names known, so a call is answered by the policy (TOOL_NOT_AVAILABLE when MCP is
 * off) instead of TOOL_NOT_FOUND; when the server is in use, running one connects and the server checks the input.
 */
const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

export function configuredToolStubs(config: McpServerConfig): DiscoveredTool[] {
  return Object.keys(config.tools).map((name) => ({
    name,
    description: `${name} (MCP server ${config.id}, not yet discovered)`,
  }));
}

function pickAnnotations(input: NonNullable<ToolDefinition["annotations"]>): ToolDefinition["annotations"] {
  const out: NonNullable<ToolDefinition["annotations"]> = {};
  for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"] as const) {
    if (typeof input[key] === "boolean") out[key] = input[key];
  }
  if (typeof input.title === "string") out.title = input.title;
  return out;
}
