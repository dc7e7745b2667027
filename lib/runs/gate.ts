// The execution gate: every call the model makes is checked again, against the same effective policy the
// exposure gate used, before anything runs. Order matters for the error the model gets: unknown name →
// TOOL_NOT_FOUND; known but removed by a layer → that layer's code; then the arguments; then exec rules.
import { decideExecCall } from "@/lib/exec/decide";
import type { SourcedRule } from "@/lib/exec/rules";
import {
  ASK_BY_TOOL_RULE,
  buildDenial,
  normalizeToolName,
  type DenialCode,
  type EffectiveToolPolicy,
  type ToolDecision,
  type ToolDefinition,
  type ToolMode,
  type ToolRegistry,
} from "@/lib/policy";

/** How many schema issues an INVALID_ARGUMENTS message lists before "and N more". */
const MAX_LISTED_ISSUES = 10;

/** What the model receives for a call that did not run (docs/requirements.md: "Terms" and A5). */
export type DenialResult = {
  ok: false;
  error_code: DenialCode;
  tool_name: string;
  mode: ToolMode;
  message: string;
  next_action: string;
};

export type GateVerdict =
  | {
      verdict: "run";
      tool: ToolDefinition;
      input: unknown;
      decision: ToolDecision;
      reason: string;
      grantIds?: string[];
    }
  | { verdict: "ask"; tool: ToolDefinition; input: unknown; decision: ToolDecision; reason: string }
  | { verdict: "deny"; denial: DenialResult; layer: string; rule?: string; reason: string };

export function denial(
  code: DenialCode,
  toolName: string,
  mode: ToolMode,
  message: string,
  nextAction: string,
): DenialResult {
  return { ok: false, error_code: code, tool_name: toolName, mode, message, next_action: nextAction };
}

export function checkToolCall({
  policy,
  registry,
  toolName,
  input,
  grantedModes,
  durable,
  execHost,
}: {
  policy: EffectiveToolPolicy;
  registry: ToolRegistry<ToolDefinition>;
  toolName: string;
  input: unknown;
  grantedModes: readonly ToolMode[];
  /** Owners' allow-always grants in force for this requester: exec rules and tool names. */
  durable?: { execRules: readonly SourcedRule[]; tools: ReadonlySet<string> };
  /** Why exec would run on the host for this turn (an admin's exec.host), or null: sandbox mode asks for that. */
  execHost?: string | null;
}): GateVerdict {
  const mode = policy.mode;
  const name = normalizeToolName(String(toolName ?? ""));
  const decision = policy.check(name);
  const tool = registry.get(name);
  if (!decision.allowed || !tool) {
    const d = decision.allowed
      ? { ...decision, allowed: false, errorCode: "TOOL_NOT_FOUND" as const, layer: "not_found" as const }
      : decision;
    return {
      verdict: "deny",
      denial: buildDenial(d, mode, { grantedModes }),
      layer: String(d.layer),
      rule: d.rule,
      reason: d.reason,
    };
  }
  if (typeof input === "string" || input === null || typeof input !== "object" || Array.isArray(input)) {
    // Text is quoted (cut short): it may say why it is not an object (lib/runs/model-guard.ts).
    return invalidArguments(
      name,
      mode,
      `arguments must be a JSON object${typeof input === "string" ? `, not the text ${JSON.stringify(input.slice(0, 200))}` : ""}`,
    );
  }
  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) {
    // The first issues say what is wrong; a long array of wrong items would otherwise make a message of megabytes,
    // written to the transcript and the audit row and sent back to the model on every later step.
    const issues = parsed.error.issues;
    const listed = issues
      .slice(0, MAX_LISTED_ISSUES)
      .map((i) => `${i.path.slice(0, 8).join(".") || "(arguments)"}: ${i.message.slice(0, 200)}`);
    if (issues.length > MAX_LISTED_ISSUES) listed.push(`and ${issues.length - MAX_LISTED_ISSUES} more`);
    return invalidArguments(name, mode, listed.join("; "));
  }
  if (name === "exec") {
    const command = String((parsed.data as { command?: unknown }).command ?? "");
    const { verdict, grantIds } = decideExecCall({
      command,
      settings: policy.exec,
      rules: durable?.execRules ?? [],
      host: execHost ?? null,
    });
    if (verdict.action === "deny") {
      return {
        verdict: "deny",
        denial: denial(
          "POLICY_DENIED",
          name,
          mode,
          `exec refused: ${verdict.reason}.`,
          "Ask an admin to allow this command in the exec settings of /admin/policy, or continue without it.",
        ),
        layer: "exec",
        rule: `exec.security: ${policy.exec.security}`,
        reason: verdict.reason,
      };
    }
    if (verdict.action === "ask") return { verdict: "ask", tool, input: parsed.data, decision, reason: verdict.reason };
    return { verdict: "run", tool, input: parsed.data, decision, reason: verdict.reason, grantIds };
  }
  if (decision.effect === "ask" && !durable?.tools.has(name))
    return { verdict: "ask", tool, input: parsed.data, decision, reason: askReason(tool, decision) };
  return { verdict: "run", tool, input: parsed.data, decision, reason: decision.reason };
}

/** Why a call waits: the tool's own reason (an MCP server's destructive annotation) or the ask rule that matched. */
function askReason(tool: ToolDefinition, decision: ToolDecision): string {
  const own = (tool as { approvalReason?: unknown }).approvalReason;
  if (decision.rule === ASK_BY_TOOL_RULE && typeof own === "string" && own !== "") return own;
  return `an ask rule matches (${decision.rule ?? tool.name})`;
}

function invalidArguments(name: string, mode: ToolMode, problem: string): GateVerdict {
  return {
    verdict: "deny",
    denial: denial(
      "INVALID_ARGUMENTS",
      name,
      mode,
      `invalid arguments for ${name}: ${problem}`,
      `Call ${name} again with arguments that match its schema.`,
    ),
    layer: "arguments",
    reason: problem,
  };
}
