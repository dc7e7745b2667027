import "server-only";
// Which configured model a new chat runs on (issue 32). The list is the configuration's (MODELS); an agent that names
// a model runs only on the entries it names. The choice is made here, at creation, and stored on the session: no
// later request, and nothing the model says, changes it.
import { loadConfig } from "@/lib/config";
import { AppError } from "@/lib/errors";
import { findModel, modelsForAgent, type ModelEntry } from "@/lib/models/catalog";

export type ModelOption = { id: string; provider: string; model: string | null };

function option(entry: ModelEntry): ModelOption {
  return { id: entry.id, provider: entry.provider, model: entry.model ?? null };
}

/**
 * The entries a chat (as this agent) may run on, the default first. An agent naming a model that is not configured
 * (a policy saved before the configuration changed) keeps running on the default one; the turn notes it.
 */
export function modelOptionsFor({ agentModel }: { agentModel?: string | null }): ModelOption[] {
  const { models } = loadConfig();
  const allowed = modelsForAgent(models, agentModel);
  return (allowed.length > 0 ? allowed : models.slice(0, 1)).map(option);
}

/** Every configured model (the picker shows itself only when there is more than one). */
export function configuredModelCount(): number {
  return loadConfig().models.length;
}

/** The default model's id: what a session without a stored model runs on. */
export function defaultModelId(): string {
  const first = loadConfig().models[0];
  if (!first) throw new AppError("INTERNAL", "no model is configured");
  return first.id;
}

/**
 * The model id to store on a new session: unknown → 400, configured but not this agent's → 403. Null when nothing
 * was asked for and the agent runs on the default model (such sessions follow the default, as before there was a list).
 */
export function chooseSessionModel({
  requested,
  agentId,
  agentModel,
}: {
  requested?: string;
  agentId?: string;
  agentModel?: string | null;
}): string | null {
  const options = modelOptionsFor({ agentModel });
  if (requested !== undefined) {
    if (!findModel(loadConfig().models, requested)) {
      throw new AppError(
        "BAD_REQUEST",
        `model "${requested}" is not configured; choose one of ${loadConfig()
          .models.map((m) => m.id)
          .join(", ")}`,
        { field: "model", model: requested },
      );
    }
    if (!options.some((o) => o.id === requested)) {
      throw new AppError(
        "FORBIDDEN",
        `the agent "${agentId}" does not run on the model "${requested}"; choose one of ${options.map((o) => o.id).join(", ")}`,
        { field: "model", model: requested, agentId },
      );
    }
    return requested;
  }
  const chosen = options[0]!.id;
  return chosen === defaultModelId() ? null : chosen;
}
