// Starting a chat: the default assistant or one of the agents this user may use (the server lists only those and
// checks again on submit). Each choice is a submit button of one form, so it works before hydration.
import { ModelSelect, type PickableModel } from "./model-select";

export type PickableAgent = { id: string; name: string; description: string | null; model: string | null };

export function AgentPicker({
  agents,
  newChat,
  models = [],
}: {
  agents: PickableAgent[];
  newChat: (formData: FormData) => Promise<void>;
  models?: PickableModel[];
}) {
  const choices = [
    {
      id: "",
      name: "Default assistant",
      description: "The Toolgate assistant, with the tools your role and mode allow.",
      model: null,
    },
    ...agents,
  ];
  return (
    <form action={newChat} aria-label="Start a chat as" className="w-full max-w-2xl">
      <ModelSelect models={models} forAgents />
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-700 dark:text-slate-300">Start a new chat as</legend>
        <ul className="grid gap-2 sm:grid-cols-2">
          {choices.map((agent) => (
            <li key={agent.id || "default"}>
              <button
                type="submit"
                name="agentId"
                value={agent.id}
                data-testid={`pick-agent-${agent.id || "default"}`}
                className="flex h-full w-full flex-col items-start gap-1 rounded-lg border border-slate-300 bg-white px-3 py-2 text-left hover:border-sky-600 hover:bg-sky-50 focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-700 dark:bg-slate-900 dark:hover:bg-slate-800"
              >
                <span className="font-medium">{agent.name}</span>
                {agent.description ? (
                  <span className="line-clamp-2 text-sm text-slate-600 dark:text-slate-400">{agent.description}</span>
                ) : null}
              </button>
            </li>
          ))}
        </ul>
      </fieldset>
    </form>
  );
}
