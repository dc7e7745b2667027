// Two policy documents side by side for a reviewer: the changed paths (policy-diff) and a line diff of the
// documents as canonical JSON (keys sorted, so key order never shows as a change). Pure: the history tab computes
// it in the browser from the two versions' documents.
import { diffLines } from "diff";
import { diffPolicyPaths } from "./policy-diff";

export type DiffLine = { kind: "added" | "removed" | "same"; text: string };
export type VersionDiff = { paths: string[]; lines: DiffLine[]; added: number; removed: number };

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, v]) => [k, sortKeys(v)]),
  );
}

export function canonicalJson(value: unknown): string {
  return `${JSON.stringify(sortKeys(value), null, 2)}\n`;
}

/** `before` → `after`; paths descend all the way (arrays whole), lines come from jsdiff's line diff. */
export function diffVersions(before: unknown, after: unknown): VersionDiff {
  const lines: DiffLine[] = [];
  let added = 0;
  let removed = 0;
  for (const part of diffLines(canonicalJson(before), canonicalJson(after))) {
    const kind = part.added ? "added" : part.removed ? "removed" : "same";
    const texts = part.value.replace(/\n$/, "").split("\n");
    if (kind === "added") added += texts.length;
    if (kind === "removed") removed += texts.length;
    for (const text of texts) lines.push({ kind, text });
  }
  return { paths: diffPolicyPaths(before, after, Number.POSITIVE_INFINITY), lines, added, removed };
}

/** The changed lines with `context` unchanged lines around each change; runs further away collapse to one marker. */
export function withContext(
  lines: readonly DiffLine[],
  context = 3,
): Array<DiffLine | { kind: "skip"; count: number }> {
  const keep = lines.map(() => false);
  lines.forEach((line, index) => {
    if (line.kind === "same") return;
    for (let i = Math.max(0, index - context); i <= Math.min(lines.length - 1, index + context); i++) keep[i] = true;
  });
  const out: Array<DiffLine | { kind: "skip"; count: number }> = [];
  let skipped = 0;
  lines.forEach((line, index) => {
    if (keep[index]) {
      if (skipped > 0) out.push({ kind: "skip", count: skipped });
      skipped = 0;
      out.push(line);
    } else skipped++;
  });
  if (skipped > 0) out.push({ kind: "skip", count: skipped });
  return out;
}
