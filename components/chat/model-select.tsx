// The model a new chat runs on, shown only when more than one is configured. A plain select inside the new-chat form,
// so it works before hydration; the server checks the choice again (configured, and the agent's).
// It starts on "Default" (an empty value: no `model` sent), not on the first model: in the agent form a pre-selected
// model would be sent with every agent button, and an agent that runs only on another model would be refused.
export type PickableModel = { id: string };

export function ModelSelect({ models, forAgents = false }: { models: PickableModel[]; forAgents?: boolean }) {
  if (models.length < 2) return null;
  const first = models[0]!.id;
  return (
    <label className="mb-3 flex items-center justify-center gap-2 text-sm text-slate-700 dark:text-slate-300">
      <span className="font-medium">Model</span>
      <select
        name="model"
        defaultValue=""
        data-testid="pick-model"
        className="max-w-full rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm dark:border-slate-700 dark:bg-slate-900"
      >
        <option value="">{forAgents ? `Default (agent's or ${first})` : `Default (${first})`}</option>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
          </option>
        ))}
      </select>
    </label>
  );
}
