// The model a new chat runs on, shown only when more than one is configured. A plain select inside the new-chat form,
// so it works before hydration; the server checks the choice again (configured, and the agent's).
export type PickableModel = { id: string };

export function ModelSelect({ models }: { models: PickableModel[] }) {
  if (models.length < 2) return null;
  return (
    <label className="mb-3 flex items-center justify-center gap-2 text-sm text-slate-700 dark:text-slate-300">
      <span className="font-medium">Model</span>
      <select name="model" defaultValue={models[0]!.id} data-testid="pick-model" className="rounded-md border border-slate-300 bg-white px-2 py-1 font-mono text-sm dark:border-slate-700 dark:bg-slate-900">
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.id}
          </option>
        ))}
      </select>
    </label>
  );
}
