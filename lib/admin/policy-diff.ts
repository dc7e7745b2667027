// Which parts of the policy document changed between two versions: shown in the version history and written
// to the audit log, so a reviewer sees "tools.deny, teams.ops" rather than two whole documents.

function canonical(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
}

export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/**
 * Changed paths, descending into objects up to `depth` levels (2 by default: "tools.deny", "teams.ops").
 * Arrays and leaves are compared whole. Key order never counts as a change.
 */
export function diffPolicyPaths(previous: unknown, next: unknown, depth = 2): string[] {
  const out: string[] = [];
  walk(previous, next, [], depth, out);
  return out;
}

function walk(a: unknown, b: unknown, path: string[], depth: number, out: string[]): void {
  if (sameValue(a, b)) return;
  if (depth === 0 || !isRecord(a) || !isRecord(b)) {
    out.push(path.join(".") || "(root)");
    return;
  }
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) walk(a[key], b[key], [...path, key], depth - 1, out);
}

/** Top-level sections only ("tools", "system"): the short summary of a version. */
export function changedSections(previous: unknown, next: unknown): string[] {
  return diffPolicyPaths(previous, next, 1);
}
