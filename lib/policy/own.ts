// Own-property lookups for name tables. Tool, agent, team, provider and profile names come from admins, plugins
// and models; a plain `table[name]` would find `constructor`, `toString` or `__proto__` on Object.prototype.

/** The value stored under `key` on `table` itself, never one inherited from its prototype. */
export function ownValue<V>(
  table: Readonly<Record<string, V>> | undefined | null,
  key: string | undefined,
): V | undefined {
  if (!table || key === undefined || !Object.hasOwn(table, key)) return undefined;
  return table[key];
}

export function hasOwnKey(
  table: Readonly<Record<string, unknown>> | undefined | null,
  key: string | undefined,
): boolean {
  return Boolean(table) && key !== undefined && Object.hasOwn(table as object, key);
}
