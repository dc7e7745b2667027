// How the offline model reports tool results: in a sentence or two of prose, never the result's JSON (the tool
// card under the call already shows the whole result), and for a refused call never the denial card's own
// message or next step (the card shows those; repeating them word for word is noise).
import type { LanguageModelV3Prompt, LanguageModelV3ToolResultPart } from "@ai-sdk/provider";
import {
  asExecResult as asExec,
  asToolError as asError,
  failureWords,
  parsedResult as parsed,
  type ExecResult,
} from "@/lib/tools/result-shapes";

/** The codes of the execution gate's refusals (lib/runs/gate.ts), each worded by what it means to the user. */
const REFUSALS: Record<string, string> = {
  MODE_DENIED: "is not available in this chat's mode",
  POLICY_DENIED: "is blocked by the tool policy",
  TOOL_NOT_AVAILABLE: "is not available here",
  TOOL_NOT_FOUND: "does not exist",
  APPROVAL_DENIED: "was declined by an owner",
  APPROVAL_EXPIRED: "was not decided by an owner in time",
  APPROVAL_PENDING: "is still waiting for an owner's decision",
  INVALID_ARGUMENTS: "was refused because its arguments were not valid",
  LIMIT_EXCEEDED: "was refused because it went past a limit",
};

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function lineCount(text: string): number {
  const t = text.replace(/\n$/, "");
  return t === "" ? 0 : t.split("\n").length;
}

function lastLine(text: string): string {
  return text.trim().split("\n").at(-1)?.trim() ?? "";
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** Backticks for inline code, without letting the quoted text close them. */
function code(text: string): string {
  return `\`${clip(text.replace(/`/g, "'").replace(/\s+/g, " "), 80)}\``;
}

function describeExec(name: string, r: ExecResult, command: string | undefined): string {
  const what = command ? ` for ${code(command)}` : "";
  const printed = `${plural(lineCount(r.stdout), "line")} of output${r.stderr.trim() ? ` and ${plural(lineCount(r.stderr), "line")} of error output` : ""}`;
  const cut = r.truncated ? " The output was cut at the size limit." : "";
  if (r.timedOut)
    return `The tool "${name}" returned no exit status${what}: the command ran out of time and was stopped.${cut}`;
  if (r.exitCode === 0)
    return `The tool "${name}" returned exit status 0${what}: the command succeeded with ${printed} (shown in the card).${cut}`;
  const status =
    r.exitCode === null ? `no exit status (ended by ${r.signal ?? "a signal"})` : `exit status ${r.exitCode}`;
  const why = lastLine(r.stderr) || lastLine(r.stdout);
  return `The tool "${name}" returned ${status}${what}: the command failed.${why ? ` Its last line of output was “${clip(why, 160)}”.` : ""}${cut}`;
}

function describeObject(name: string, value: Record<string, unknown>): string {
  if (typeof value.content === "string" && typeof value.path === "string") {
    const first = value.content.split("\n").find((l) => l.trim() !== "") ?? "";
    return `The tool "${name}" returned ${code(value.path)}: ${plural(lineCount(value.content), "line")}${first ? `, starting with “${clip(first.trim(), 120)}”` : ""}.`;
  }
  if (typeof value.iso === "string" && typeof value.timezone === "string")
    return `The tool "${name}" returned the time: ${value.iso} (${value.timezone}).`;
  const lists = Object.entries(value).filter(([, v]) => Array.isArray(v)) as Array<[string, unknown[]]>;
  const scalars = Object.entries(value).filter(([, v]) => ["string", "number", "boolean"].includes(typeof v));
  const said = [
    ...lists.map(([k, v]) => `${plural(v.length, "item")} in ${k}`),
    ...scalars.slice(0, 4).map(([k, v]) => `${k} ${typeof v === "string" ? `“${clip(v, 80)}”` : String(v)}`),
  ];
  return said.length > 0
    ? `The tool "${name}" returned ${said.join(", ")} (the card shows all of it).`
    : `The tool "${name}" returned a result (the card shows it).`;
}

/** The call's input, found by its id in the assistant turn that made it (the result does not repeat it). */
export function inputOfCall(prompt: LanguageModelV3Prompt, toolCallId: string): Record<string, unknown> | undefined {
  for (const message of prompt) {
    if (message.role !== "assistant") continue;
    for (const part of message.content) {
      if (part.type === "tool-call" && part.toolCallId === toolCallId) {
        const input = parsed(part.input);
        return input && typeof input === "object" ? (input as Record<string, unknown>) : undefined;
      }
    }
  }
  return undefined;
}

export function describeResult(part: LanguageModelV3ToolResultPart, input?: Record<string, unknown>): string {
  const name = part.toolName;
  const out = part.output;
  if (out.type === "execution-denied") return `The tool "${name}" was not run: ${out.reason ?? "the call was denied"}.`;
  if (out.type === "content") {
    return `The tool "${name}" returned: ${clip(out.value.map((v) => (v.type === "text" ? v.text : `[${v.type}]`)).join(" "), 300)}`;
  }
  const value = parsed(out.value);
  const error = asError(value);
  if (error) {
    const tool = error.tool_name ?? name;
    const refusal = error.next_action ? REFUSALS[error.error_code] : undefined;
    if (refusal || error.next_action) {
      const mode = error.mode ? ` in ${error.mode} mode` : "";
      return `The tool "${tool}" was not allowed${mode}: it ${refusal ?? "was refused"}. The card above says why and what you can do.`;
    }
    const words = failureWords(error.error_code);
    return `The tool "${tool}" failed (${words}): ${clip((error.message ?? "no reason given").replace(/\.+$/, ""), 200)}.`;
  }
  if (out.type === "error-text" || out.type === "error-json") {
    return `The tool "${name}" failed: ${clip(typeof value === "string" ? value : "see the card for the error", 200)}`;
  }
  const exec = asExec(value);
  if (exec) return describeExec(name, exec, typeof input?.command === "string" ? input.command : undefined);
  if (typeof value === "string") return `The tool "${name}" returned: ${clip(value, 300)}`;
  if (typeof value === "number" || typeof value === "boolean") return `The tool "${name}" returned: ${String(value)}`;
  if (value && typeof value === "object" && !Array.isArray(value))
    return describeObject(name, value as Record<string, unknown>);
  if (Array.isArray(value)) return `The tool "${name}" returned ${plural(value.length, "item")} (the card shows them).`;
  return `The tool "${name}" returned nothing.`;
}

export function summarise(results: LanguageModelV3ToolResultPart[], prompt: LanguageModelV3Prompt): string {
  if (results.length === 0) return "The tools finished without reporting anything.";
  const lines = results.map((r) => describeResult(r, inputOfCall(prompt, r.toolCallId)));
  return lines.length === 1 ? lines[0]! : `Here is what the tools reported:\n${lines.map((l) => `- ${l}`).join("\n")}`;
}
