import "server-only";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { loadConfig } from "@/lib/config";
import { createLanguageModel } from "./model-provider";

/** The configured model and how policy should name it (provider / provider/model layers). */
export function getConfiguredModel(): { model: LanguageModelV3; info: { provider: string; model?: string } } {
  const c = loadConfig();
  const apiKey = c.MODEL_PROVIDER === "openai" ? c.OPENAI_API_KEY : c.MODEL_PROVIDER === "anthropic" ? c.ANTHROPIC_API_KEY : c.OPENAI_COMPATIBLE_API_KEY;
  const model = createLanguageModel({ provider: c.MODEL_PROVIDER, model: c.MODEL_NAME, baseUrl: c.modelBaseUrl, apiKey, offline: { chunkDelayMs: c.OFFLINE_MODEL_CHUNK_DELAY_MS } });
  return { model, info: { provider: c.MODEL_PROVIDER, model: c.MODEL_NAME ?? model.modelId } };
}
