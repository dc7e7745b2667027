// The one list of models (issue 32): `MODELS=provider:model,…` configures several; MODEL_PROVIDER/MODEL_NAME still
// work as a one-entry list. Config, the run, the prompt and the new-chat picker all read this list, so a model is
// either in it (and usable) or nowhere. Keys stay in the environment (one per provider), never in the policy.
// Pure (no config, no I/O): lib/config.ts parses with it, so it must not import anything that imports config.

export const MODEL_PROVIDER_NAMES = ["offline", "openai", "anthropic", "openai-compatible"] as const;
export type ModelProvider = (typeof MODEL_PROVIDER_NAMES)[number];

/** One configured model. `id` is how the API, the session row and the picker name it: `provider:model`. */
export type ModelEntry = { id: string; provider: ModelProvider; model: string | undefined };

const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,127}$/;
const MAX_MODELS = 32;

function isProvider(value: string): value is ModelProvider {
  return (MODEL_PROVIDER_NAMES as readonly string[]).includes(value);
}

export function modelEntry(provider: ModelProvider, model: string | undefined): ModelEntry {
  return { id: model ? `${provider}:${model}` : provider, provider, model };
}

/** `provider:model,…` (the offline model may omit its name). Problems name the entry; an empty list is one. */
export function parseModelList(value: string): { entries: ModelEntry[]; problems: string[] } {
  const entries: ModelEntry[] = [];
  const problems: string[] = [];
  const parts = value.split(",").map((p) => p.trim());
  if (parts.every((p) => p === ""))
    return { entries, problems: ["MODELS: lists no model (provider:model, comma-separated)"] };
  if (parts.length > MAX_MODELS) problems.push(`MODELS: at most ${MAX_MODELS} models`);
  for (const part of parts) {
    if (part === "") {
      problems.push("MODELS: an empty entry (two commas in a row, or a comma at the end)");
      continue;
    }
    const colon = part.indexOf(":");
    const provider = colon === -1 ? part : part.slice(0, colon);
    const model = colon === -1 ? undefined : part.slice(colon + 1);
    if (!isProvider(provider)) {
      problems.push(`MODELS: "${part}": unknown provider "${provider}"; use one of ${MODEL_PROVIDER_NAMES.join(", ")}`);
      continue;
    }
    if (model === undefined && provider !== "offline") {
      problems.push(`MODELS: "${part}": name the model (${provider}:<model>)`);
      continue;
    }
    if (model !== undefined && !MODEL_NAME.test(model)) {
      problems.push(`MODELS: "${part}": the model name must be 1-128 letters, digits or . _ : / @ + -`);
      continue;
    }
    const entry = modelEntry(provider, model);
    if (entries.some((e) => e.id === entry.id)) problems.push(`MODELS: "${part}" is listed twice`);
    else entries.push(entry);
  }
  return { entries, problems };
}

/** The configured entry a request names by id (exactly as listed), or null. */
export function findModel(entries: readonly ModelEntry[], id: string): ModelEntry | null {
  return entries.find((e) => e.id === id) ?? null;
}

/**
 * Whether an agent whose definition names `wanted` ("provider", "provider:model", "provider/model" or the bare model
 * name) may run on this entry. An agent that names no model runs on any configured one.
 */
export function agentAllowsModel(wanted: string | null | undefined, entry: ModelEntry): boolean {
  const w = wanted?.trim().toLowerCase();
  if (!w) return true;
  const provider = entry.provider.toLowerCase();
  const model = entry.model?.toLowerCase();
  return (
    w === provider ||
    (model !== undefined && (w === `${provider}:${model}` || w === `${provider}/${model}` || w === model))
  );
}

/** The entries an agent may run on, in the configured order (the first is its default). */
export function modelsForAgent(entries: readonly ModelEntry[], wanted: string | null | undefined): ModelEntry[] {
  return entries.filter((e) => agentAllowsModel(wanted, e));
}
