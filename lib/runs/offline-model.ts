// A deterministic, scripted LanguageModelV3 so the app runs (and its tests run) with no model service.
// It decides from the prompt alone: summarise the tool results the run came back with, else turn
// "/tool <name> <json>" lines into calls, else recognise a few obvious requests, else acknowledge.
import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3ToolResultPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import { summarise } from "./offline-summary";

export type OfflineModelOptions = {
  /** Pause before each streamed chunk, so a stop button can be exercised. */
  chunkDelayMs?: number;
};

type PlannedCall = { toolCallId: string; toolName: string; input: string };
export type OfflineReply = { text: string; calls: PlannedCall[] };

type Intent = { tool: string; match: (text: string) => Record<string, string> | null; doing: string };

const INTENTS: Intent[] = [
  {
    tool: "current_time",
    doing: "tell the time",
    match: (t) => (/\bwhat time is it\b|\bwhat(?:'s| is) the (?:current )?time\b|^time[?!.]*$/i.test(t) ? {} : null),
  },
  {
    tool: "read",
    doing: "read files",
    match: (t) => {
      const m = /^read\s+(?:the\s+file\s+)?`?([^\s`]+)`?$/i.exec(t);
      return m ? { path: m[1]! } : null;
    },
  },
  {
    tool: "exec",
    doing: "run commands",
    match: (t) => {
      const m = /^(?:run|execute)\s+([\s\S]+)$/i.exec(t);
      return m ? { command: m[1]!.trim().replace(/^`([\s\S]*)`$/, "$1") } : null;
    },
  },
  {
    tool: "memory_search",
    doing: "search memory",
    match: (t) => {
      const m = /^search (?:my )?memory for\s+([\s\S]+?)[?.!]*$/i.exec(t) ?? /^remember\s+([\s\S]+?)\?$/i.exec(t);
      return m ? { query: m[1]!.trim() } : null;
    },
  },
  {
    tool: "sessions_list",
    doing: "list sessions",
    match: (t) => (/\blist (?:my |all )?(?:chat )?sessions\b/i.test(t) ? {} : null),
  },
];

/** FNV-1a: a stable short hash without pulling node:crypto into the model. */
function hash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function toolCallLines(text: string, prefix: string): PlannedCall[] {
  const calls: PlannedCall[] = [];
  for (const line of text.split("\n")) {
    const m = /^\s*\/tool\s+(\S+)(?:\s+([\s\S]*))?$/.exec(line);
    if (!m) continue;
    // Raw arguments go through untouched, even when they are not JSON: the execution gate answers that.
    const args = m[2]?.trim() || "{}";
    calls.push({ toolCallId: `${prefix}_${calls.length}`, toolName: m[1]!, input: args });
  }
  return calls;
}

/** The persona layer of the system prompt (lib/runs/prompt.ts), so "who are you" shows which agent answers. */
function personaOf(prompt: LanguageModelV3CallOptions["prompt"]): { name: string; text: string } | null {
  for (const message of prompt) {
    if (message.role !== "system") continue;
    const m = /(?:^|\n)## Persona \((.+)\)\n([\s\S]*?)(?=\n\n## |$)/.exec(message.content);
    if (m) return { name: m[1]!, text: m[2]!.trim() };
  }
  return null;
}

/** The whole decision, from the prompt and offered tools alone (exported for tests and debugging). */
export function planOfflineReply(options: Pick<LanguageModelV3CallOptions, "prompt" | "tools">): OfflineReply {
  const { prompt } = options;
  const results: LanguageModelV3ToolResultPart[] = [];
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role !== "tool") break;
    results.unshift(...message.content.filter((p): p is LanguageModelV3ToolResultPart => p.type === "tool-result"));
  }
  // Back from running tools: report and stop, never call again (that is how loops start).
  if (prompt.at(-1)?.role === "tool") return { text: summarise(results, prompt), calls: [] };

  const lastUser = [...prompt].reverse().find((m) => m.role === "user");
  const text =
    lastUser?.role === "user"
      ? lastUser.content
          .map((p) => (p.type === "text" ? p.text : ""))
          .join("\n")
          .trim()
      : "";
  if (text === "") return { text: "Hello! I am the offline model. Ask me something.", calls: [] };

  const prefix = `call_${hash(`${prompt.length}:${text}`)}`;
  const explicit = toolCallLines(text, prefix);
  if (explicit.length > 0) return { text: "", calls: explicit };

  if (/^who are you\??$/i.test(text)) {
    const persona = personaOf(prompt);
    return {
      text: persona
        ? `I am ${persona.name}, answering as the offline model. My persona: ${clip(persona.text, 300)}`
        : "I am the Toolgate assistant (the offline model), with no agent persona.",
      calls: [],
    };
  }

  const offered = new Set((options.tools ?? []).map((t) => t.name));
  for (const intent of INTENTS) {
    const args = intent.match(text);
    if (!args) continue;
    if (!offered.has(intent.tool)) {
      return {
        text: `I can't ${intent.doing} here: the ${intent.tool} tool is not available in this session's mode.`,
        calls: [],
      };
    }
    return { text: "", calls: [{ toolCallId: `${prefix}_0`, toolName: intent.tool, input: JSON.stringify(args) }] };
  }
  return {
    text: `You said: "${clip(text, 200)}". I am the offline model and answer from a fixed script; write "/tool <name> <json arguments>" on a line to call a tool.`,
    calls: [],
  };
}

function usageOf(options: LanguageModelV3CallOptions, reply: OfflineReply): LanguageModelV3Usage {
  const input = Math.ceil(JSON.stringify(options.prompt).length / 4);
  const output = Math.ceil((reply.text.length + reply.calls.reduce((n, c) => n + c.input.length, 0)) / 4);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

function finishReasonOf(reply: OfflineReply): LanguageModelV3FinishReason {
  return reply.calls.length > 0 ? { unified: "tool-calls", raw: "tool_calls" } : { unified: "stop", raw: "stop" };
}

/** Splits text into about four word-aligned chunks. */
function chunk(text: string): string[] {
  const words = text.split(/(?<=\s)/);
  const size = Math.max(1, Math.ceil(words.length / 4));
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += size) chunks.push(words.slice(i, i + size).join(""));
  return chunks;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException("The operation was aborted.", "AbortError");
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal!));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

function streamOf(parts: LanguageModelV3StreamPart[], delayMs: number, signal?: AbortSignal) {
  let next = 0;
  return new ReadableStream<LanguageModelV3StreamPart>({
    async pull(controller) {
      try {
        if (next > 0 && delayMs > 0 && next < parts.length) await sleep(delayMs, signal);
        if (signal?.aborted) throw abortError(signal);
      } catch (err) {
        controller.error(err);
        return;
      }
      const part = parts[next++];
      if (part) controller.enqueue(part);
      else controller.close();
    },
  });
}

export function createOfflineModel(options: OfflineModelOptions = {}): LanguageModelV3 {
  const delayMs = options.chunkDelayMs ?? 0;
  return {
    specificationVersion: "v3",
    provider: "toolgate",
    modelId: "offline",
    supportedUrls: {},
    async doGenerate(call) {
      if (call.abortSignal?.aborted) throw abortError(call.abortSignal);
      const reply = planOfflineReply(call);
      const content: LanguageModelV3Content[] = [];
      if (reply.text) content.push({ type: "text", text: reply.text });
      for (const c of reply.calls) content.push({ type: "tool-call", ...c });
      return { content, finishReason: finishReasonOf(reply), usage: usageOf(call, reply), warnings: [] };
    },
    async doStream(call) {
      if (call.abortSignal?.aborted) throw abortError(call.abortSignal);
      const reply = planOfflineReply(call);
      const parts: LanguageModelV3StreamPart[] = [{ type: "stream-start", warnings: [] }];
      if (reply.text) {
        parts.push({ type: "text-start", id: "text-0" });
        for (const delta of chunk(reply.text)) parts.push({ type: "text-delta", id: "text-0", delta });
        parts.push({ type: "text-end", id: "text-0" });
      }
      for (const c of reply.calls) parts.push({ type: "tool-call", ...c });
      parts.push({ type: "finish", finishReason: finishReasonOf(reply), usage: usageOf(call, reply) });
      return { stream: streamOf(parts, delayMs, call.abortSignal) };
    },
  };
}
