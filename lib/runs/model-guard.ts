import "server-only";
// What a model sends is parsed, validated, hashed, stored and shown by code that walks it recursively, the AI SDK's
// own included (it serialises a step's parsed tool calls when the step ends). Arguments nested a few thousand levels
// deep fit in a few kilobytes and overflow those walks: the turn failed with an internal error instead of the model
// being told. The guard sits between the model and the SDK, so the SDK never parses such arguments.
import { wrapLanguageModel } from "ai";
import type { LanguageModelV3, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { jsonDepthExceeds, MAX_JSON_DEPTH } from "@/lib/json-depth";

/**
 * Arguments too deep become a JSON string saying so: the SDK parses it as text, and the gate refuses text as
 * arguments (INVALID_ARGUMENTS, quoting it), so the model is told why and nothing runs.
 */
function guardPart(part: LanguageModelV3StreamPart): LanguageModelV3StreamPart {
  if (part.type !== "tool-call" || !jsonDepthExceeds(part.input)) return part;
  return {
    ...part,
    input: JSON.stringify(`Toolgate refused these arguments: nested deeper than ${MAX_JSON_DEPTH} levels`),
  };
}

export function guardModel(model: LanguageModelV3): LanguageModelV3 {
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: "v3",
      wrapStream: async ({ doStream }) => {
        const { stream, ...rest } = await doStream();
        return {
          ...rest,
          stream: stream.pipeThrough(
            new TransformStream<LanguageModelV3StreamPart, LanguageModelV3StreamPart>({
              transform: (part, controller) => controller.enqueue(guardPart(part)),
            }),
          ),
        };
      },
    },
  });
}
