// The structured result the model receives when a call is refused. Every next_action must be something the
// user can actually do in this product.
import { LAYER_LABELS } from "./layer-units";
import type { ToolDecision, ToolMode } from "./types";

export type ToolDenial = {
  ok: false;
  error_code: NonNullable<ToolDecision["errorCode"]>;
  tool_name: string;
  mode: ToolMode;
  message: string;
  next_action: string;
};

const CAPABILITY_NAMES: Readonly<Record<string, string>> = {
  fs: "file system tools",
  exec: "command execution",
  web: "web tools",
  mcp: "MCP (plugin) tools",
};

function modeNextAction(decision: ToolDecision, mode: ToolMode, grantedModes?: readonly ToolMode[]): string {
  const target = decision.availableModes.find((candidate) => candidate !== mode);
  if (!target) {
    return `${decision.name} is not enabled in any mode. Continue without it, or ask an admin to enable it in /admin/policy.`;
  }
  if (grantedModes?.includes(target)) return `Switch this session to ${target} mode, then try again.`;
  return `Ask an admin to grant the ${target} mode, then switch this session to ${target}.`;
}

/** Throws for an allowed decision: a denial for a permitted call would be a bug upstream. */
export function buildDenial(
  decision: ToolDecision,
  mode: ToolMode,
  options: { grantedModes?: readonly ToolMode[] } = {},
): ToolDenial {
  if (decision.allowed || !decision.errorCode)
    throw new Error(`buildDenial called for allowed tool "${decision.name}"`);
  const base = { ok: false as const, error_code: decision.errorCode, tool_name: decision.name, mode };
  switch (decision.errorCode) {
    case "MODE_DENIED":
      return {
        ...base,
        message: `${decision.name} is not allowed in ${mode} mode.`,
        next_action: modeNextAction(decision, mode, options.grantedModes),
      };
    case "TOOL_NOT_AVAILABLE": {
      const capability = decision.capability ?? "this capability";
      const label = CAPABILITY_NAMES[capability] ?? capability;
      const plugin = decision.rule?.startsWith("mcp.allowedServers") === true;
      return {
        ...base,
        message: `${decision.name} is not available: ${decision.rule ?? "switched off"} in the system tool settings.`,
        next_action: plugin
          ? `An admin has not allowed this MCP server; ask an admin to add it to the allowed servers in /admin/policy, or continue without it.`
          : `An admin has switched off ${label}; ask an admin to enable ${capability} in /admin/policy, or continue without it.`,
      };
    }
    case "TOOL_NOT_FOUND":
      return {
        ...base,
        message: `There is no tool named "${decision.name}".`,
        next_action: "Use only the tools listed for this session.",
      };
    default: {
      const layer =
        decision.layer === "allowed" || decision.layer === "not_found"
          ? "a policy layer"
          : decision.layer === "parent"
            ? "the parent run's tool set (a subagent never has more tools than its parent)"
            : LAYER_LABELS[decision.layer];
      return {
        ...base,
        message: `${decision.name} was denied by ${layer}${decision.rule ? ` (${decision.rule})` : ""}.`,
        next_action: `Continue without ${decision.name}, or ask an admin to change ${layer}${decision.source ? ` (${decision.source})` : ""} in /admin/policy.`,
      };
    }
  }
}
