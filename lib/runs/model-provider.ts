// Builds the language model the agent loop talks to. The offline model is the default because these
// machines reach no model service; a real provider is used only when it is fully configured.
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import { AppError } from "@/lib/errors";
import { MODEL_PROVIDER_NAMES, type ModelProvider } from "@/lib/models/catalog";
import { createOfflineModel, type OfflineModelOptions } from "./offline-model";

export type ModelConfig = {
  provider: ModelProvider;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  /** Only for the offline model. */
  offline?: OfflineModelOptions;
};

function missing(provider: string, what: string, envHint: string): AppError {
  return new AppError("VALIDATION_FAILED", `model provider "${provider}" needs ${what} (set ${envHint})`, {
    provider,
    missing: what,
  });
}

function required(value: string | undefined, provider: string, what: string, envHint: string): string {
  const trimmed = value?.trim();
  if (!trimmed) throw missing(provider, what, envHint);
  return trimmed;
}

function checkedBaseUrl(value: string | undefined, provider: string, envHint: string): string | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new AppError(
      "VALIDATION_FAILED",
      `model provider "${provider}": base URL "${value}" is not a URL (${envHint})`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError(
      "VALIDATION_FAILED",
      `model provider "${provider}": base URL must be http or https (${envHint})`,
    );
  }
  return value.replace(/\/+$/, "");
}

export function createLanguageModel(config: ModelConfig): LanguageModelV3 {
  switch (config.provider) {
    case "offline":
      return createOfflineModel(config.offline);
    case "openai": {
      const apiKey = required(config.apiKey, "openai", "an API key", "OPENAI_API_KEY");
      const model = required(config.model, "openai", "a model name", "MODEL_NAME");
      return createOpenAI({ apiKey, baseURL: checkedBaseUrl(config.baseUrl, "openai", "the base URL") })(model);
    }
    case "anthropic": {
      const apiKey = required(config.apiKey, "anthropic", "an API key", "ANTHROPIC_API_KEY");
      const model = required(config.model, "anthropic", "a model name", "MODEL_NAME");
      return createAnthropic({
        apiKey,
        baseURL: checkedBaseUrl(config.baseUrl, "anthropic", "the base URL"),
      }).languageModel(model);
    }
    case "openai-compatible": {
      const baseURL = checkedBaseUrl(
        required(config.baseUrl, "openai-compatible", "a base URL", "OPENAI_COMPATIBLE_BASE_URL"),
        "openai-compatible",
        "OPENAI_COMPATIBLE_BASE_URL",
      )!;
      const model = required(config.model, "openai-compatible", "a model name", "MODEL_NAME");
      // Servers such as Ollama or vLLM often need no key; send one only when configured.
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        apiKey: config.apiKey?.trim() || undefined,
      }).chatModel(model);
    }
    default: {
      const provider: never = config.provider;
      throw new AppError(
        "VALIDATION_FAILED",
        `unknown model provider "${String(provider)}"; use one of ${MODEL_PROVIDER_NAMES.join(", ")}`,
      );
    }
  }
}
