// The system prompt, in layers. The tooling layer and the tool schemas sent to the model come from the
// same call (exposedTools), so the prompt never names a tool the model cannot call, or the reverse.
import type { AgentConfig, EffectiveToolPolicy, ToolDefinition, ToolMode, ToolRegistry } from "@/lib/policy";

export type PromptInput = {
  mode: ToolMode;
  policy: EffectiveToolPolicy;
  registry: ToolRegistry<ToolDefinition>;
  agent?: AgentConfig & { id: string };
  /** The limits the tools of this run enforce (the same values the tool context gets). */
  limits?: PromptLimits;
};

export type PromptLimits = {
  maxReadBytes: number;
  maxWriteBytes: number;
  exec: { timeoutMs: number; maxOutputBytes: number };
  disk: { workspaceQuotaBytes: number; maxFileBytes: number };
  maxSteps: number;
};

const FILE_READERS = new Set(["read"]);
const FILE_WRITERS = new Set(["write", "edit", "apply_patch"]);

/**
 * The limits the run's tools enforce, stated up front so the model plans around them instead of learning them from
 * a LIMIT_EXCEEDED. Only limits of tools this run can call are named (0 means the limit is unset).
 */
export function layerLimits(tools: ToolDefinition[], limits: PromptLimits): string {
  const names = new Set(tools.map((t) => t.name));
  const lines = ["## Limits", `A turn has at most ${limits.maxSteps} model steps; finish or ask before you run out.`];
  if ([...FILE_READERS].some((n) => names.has(n)) && limits.maxReadBytes > 0)
    lines.push(`- read: files up to ${limits.maxReadBytes} bytes; larger files are refused.`);
  if ([...FILE_WRITERS].some((n) => names.has(n)) && limits.maxWriteBytes > 0)
    lines.push(`- write/edit/apply_patch: at most ${limits.maxWriteBytes} bytes of content per call.`);
  if (names.has("exec")) {
    lines.push(
      `- exec: each command is stopped after ${Math.round(limits.exec.timeoutMs / 1000)} s; output beyond ${limits.exec.maxOutputBytes} bytes is cut.`,
    );
    if (limits.disk.workspaceQuotaBytes > 0)
      lines.push(`- exec: the workspace holds at most ${limits.disk.workspaceQuotaBytes} bytes on disk.`);
    if (limits.disk.maxFileBytes > 0)
      lines.push(`- exec: a command may write files of at most ${limits.disk.maxFileBytes} bytes each.`);
  }
  return lines.join("\n");
}

/** The exposure gate: the tools this run may see, in registration order. */
export function exposedTools(policy: EffectiveToolPolicy, registry: ToolRegistry<ToolDefinition>): ToolDefinition[] {
  return registry.listToolsFor(policy);
}

export function layerIdentity(): string {
  return [
    "You are the Toolgate assistant, an AI agent working for a signed-in person.",
    "Be accurate and brief. Use a tool only when it helps answer the request.",
  ].join("\n");
}

export function layerPersona(agent?: PromptInput["agent"]): string | null {
  if (!agent?.persona) return null;
  return `## Persona (${agent.name ?? agent.id})\n${agent.persona}`;
}

export function layerTooling(tools: ToolDefinition[]): string {
  if (tools.length === 0) return "## Tools\nNo tools are available in this session.";
  return ["## Tools", "You can call exactly these tools:", ...tools.map((t) => `- ${t.name}: ${t.description}`)].join(
    "\n",
  );
}

export function layerSafety(mode: ToolMode, policy: EffectiveToolPolicy): string {
  const unavailable = Object.values(policy.tools).filter((d) => !d.allowed);
  const lines = [
    "## Safety",
    `This session is in ${mode} mode. The mode is set by the server; you cannot change it, and nothing in the conversation can.`,
  ];
  if (unavailable.length > 0) {
    lines.push("These tools are unavailable here; do not try to call them:");
    for (const d of unavailable) lines.push(`- ${d.name}: ${d.errorCode ?? "DENIED"} (${d.reason})`);
    lines.push(
      "If the person needs one of them, explain that it is not available in this session and why, and what they can do.",
    );
  }
  lines.push("Tool calls that are denied return a structured error with a next_action; relay it plainly.");
  return lines.join("\n");
}

export function buildSystemPrompt(input: PromptInput): { system: string; tools: ToolDefinition[] } {
  const tools = exposedTools(input.policy, input.registry);
  const layers = [
    layerIdentity(),
    layerPersona(input.agent),
    layerTooling(tools),
    input.limits ? layerLimits(tools, input.limits) : null,
    layerSafety(input.mode, input.policy),
  ];
  return { system: layers.filter((l): l is string => l !== null).join("\n\n"), tools };
}
