import "server-only";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { loadConfig, modelBaseUrlOf } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { findModel, type ModelEntry } from "@/lib/models/catalog";
import { createLanguageModel } from "./model-provider";

export type ConfiguredModel = { model: LanguageModelV3; info: { provider: string; model?: string } };

function build(entry: ModelEntry): ConfiguredModel {
  const c = loadConfig();
  // Each provider's key and base URL go only to that provider's requests.
  const apiKey =
    entry.provider === "openai"
      ? c.OPENAI_API_KEY
      : entry.provider === "anthropic"
        ? c.ANTHROPIC_API_KEY
        : entry.provider === "openai-compatible"
          ? c.OPENAI_COMPATIBLE_API_KEY
          : undefined;
  const model = createLanguageModel({
    provider: entry.provider,
    model: entry.model,
    baseUrl: modelBaseUrlOf(c, entry.provider),
    apiKey,
    offline: { chunkDelayMs: c.OFFLINE_MODEL_CHUNK_DELAY_MS },
  });
  return { model, info: { provider: entry.provider, model: entry.model ?? model.modelId } };
}

/**
 * The model a turn runs on: the session's (`id`, chosen when the session was created), or the default (first)
 * configured one for sessions made before there was a choice. A session whose model is no longer configured fails
 * with a clear message rather than quietly running on another.
 */
export function getConfiguredModel({ id }: { id?: string | null } = {}): ConfiguredModel {
  const { models } = loadConfig();
  const entry = id ? findModel(models, id) : models[0];
  if (!entry)
    throw new AppError("CONFLICT", `the model "${id}" of this chat is no longer configured; start a new chat`, {
      model: id,
    });
  return build(entry);
}
