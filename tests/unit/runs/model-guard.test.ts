// The guard between the model and the AI SDK (lib/runs/model-guard.ts) and the nesting count it uses (lib/json-depth.ts,
// also for request bodies): brackets inside strings and escaped quotes must not fool it, and arguments too deep never
// reach the SDK as JSON.
import { describe, expect, it } from "vitest";
import { jsonSchema, simulateReadableStream, streamText, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@/lib/json-depth";
import { guardModel } from "@/lib/runs/model-guard";

const nested = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`;

describe("model guard", () => {
  it("counts the nesting of JSON text, not brackets inside strings", () => {
    expect(jsonDepthExceeds(nested(3), 3)).toBe(false);
    expect(jsonDepthExceeds(nested(4), 3)).toBe(true);
    expect(jsonDepthExceeds(`{"a": {"b": [1, {"c": 2}]}}`, 4)).toBe(false);
    expect(jsonDepthExceeds(`{"a": {"b": [1, {"c": 2}]}}`, 3)).toBe(true);
    expect(jsonDepthExceeds(JSON.stringify({ text: "[[[[[[[[{{{{" }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ text: 'a "quoted" [[[[ \\ back' }), 1)).toBe(false);
    expect(jsonDepthExceeds(`{"a": "\\"", "b": [[[[]]]]}`, 4)).toBe(true);
    expect(jsonDepthExceeds('{"timezone": "UT', 1)).toBe(false); // malformed: left to the parser
  });

  it("passes arguments up to the limit as they are and turns deeper ones into text the gate refuses", async () => {
    const call = (id: string, input: string) => ({
      type: "tool-call" as const,
      toolCallId: id,
      toolName: "current_time",
      input,
    });
    const atLimit = `{"a": ${nested(MAX_JSON_DEPTH - 1)}}`;
    const model = new MockLanguageModelV3({
      doStream: async () => ({
        stream: simulateReadableStream({
          chunks: [
            call("ok", atLimit),
            call("deep", `{"a": ${nested(20_000)}}`),
            {
              type: "finish" as const,
              finishReason: { unified: "tool-calls" as const, raw: undefined },
              usage: {
                inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
                outputTokens: { total: 1, text: 1, reasoning: 0 },
              },
            },
          ],
        }),
      }),
    });
    const tools = { current_time: tool({ inputSchema: jsonSchema({ type: "object" }) }) };
    const result = streamText({ model: guardModel(model), prompt: "go", tools });
    const calls: Array<{ id: string; input: unknown }> = [];
    for await (const part of result.fullStream)
      if (part.type === "tool-call") calls.push({ id: part.toolCallId, input: part.input });
    expect(calls).toEqual([
      { id: "ok", input: JSON.parse(atLimit) },
      { id: "deep", input: `Toolgate refused these arguments: nested deeper than ${MAX_JSON_DEPTH} levels` },
    ]);
  });
});
