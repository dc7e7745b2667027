import "server-only";
// What a model sends is parsed, validated, hashed, stored and shown by code that walks it recursively, the AI SDK's
// own included (it serialises a step's parsed tool calls when the step ends). Arguments nested a few thousand levels
// deep fit in a few kilobytes and overflow those walks: the turn failed with an internal error instead of the model
// being told. The guard sits between the model and the SDK, so the SDK never parses such arguments.
import { wrapLanguageModel } from "ai";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";

/** How deep a tool call's arguments may nest: far beyond any tool's schema, far below what a recursive walk takes. */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Whether JSON text nests deeper than `levels`, read in one pass without parsing (a parser is the recursion this
 * guards against); brackets inside strings do not count. Hand-written: no JSON library answers this without parsing.
 */
export function jsonNestsDeeper(text: string, levels: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i += 1; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      depth += 1;
      if (depth > levels) return true;
    } else if (c === 0x5d || c === 0x7d) depth -= 1;
  }
  return false;
}

/**
 * Arguments too deep become a JSON string saying so: the SDK parses it as text, and the gate refuses text as
 * arguments (INVALID_ARGUMENTS, quoting it), so the model is told why and nothing runs.
 */
function guardPart(part: LanguageModelV3StreamPart): LanguageModelV3StreamPart {
  if (part.type !== "tool-call" || !jsonNestsDeeper(part.input, MAX_ARGUMENT_DEPTH)) return part;
  return { ...part, input: JSON.stringify(`Toolgate refused these arguments: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`) };
}

export function guardModel(model: LanguageModelV3): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapStream: async ({ doStream }) => {
        const { stream, ...rest } = await doStream();
        return { ...rest, stream: stream.pipeThrough(new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({ transform: (part, controller) => controller.enqueue(guardPart(part)) })) };
      },
    },
  });
}
