// "Reload and reapply" after a 409: the draft's own edits (what differs from the version it started from) are
// replayed onto the version now in force. Objects are merged key by key; arrays and leaves are replaced whole
// (a deny list is one decision, not a set of independent lines). Where the other save changed the same path to
// something else, the draft's value wins and the path is reported, so the admin reviews it before saving again.
import { sameValue } from "./policy-diff";

export type MergeConflict = { path: string; theirs: unknown; yours: unknown };
export type ReapplyResult = { document: unknown; applied: string[]; conflicts: MergeConflict[] };

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const ABSENT = Symbol("absent");
type Slot = unknown | typeof ABSENT;

function pathText(path: string[]): string {
  return path.join(".") || "(root)";
}

/** Replays `base → draft` onto `latest`. None of the inputs is modified. */
export function reapplyDraft({
  base,
  draft,
  latest,
}: {
  base: unknown;
  draft: unknown;
  latest: unknown;
}): ReapplyResult {
  const applied: string[] = [];
  const conflicts: MergeConflict[] = [];
  const merged = merge(base, draft, latest, [], applied, conflicts);
  return { document: merged === ABSENT ? {} : merged, applied, conflicts };
}

function merge(
  base: Slot,
  draft: Slot,
  latest: Slot,
  path: string[],
  applied: string[],
  conflicts: MergeConflict[],
): Slot {
  // The draft did not touch this path: whatever is in force now stays.
  if (same(base, draft)) return clone(latest);
  if (isRecord(base) && isRecord(draft) && isRecord(latest)) {
    const out: Record<string, unknown> = {};
    const keys = new Set([...Object.keys(base), ...Object.keys(draft), ...Object.keys(latest)]);
    for (const key of [...keys].sort()) {
      const value = merge(slot(base, key), slot(draft, key), slot(latest, key), [...path, key], applied, conflicts);
      if (value !== ABSENT) out[key] = value;
    }
    return out;
  }
  applied.push(pathText(path));
  // Both changed the same path, differently: the draft wins, and the admin is told.
  if (!same(base, latest) && !same(draft, latest)) {
    conflicts.push({
      path: pathText(path),
      theirs: latest === ABSENT ? undefined : latest,
      yours: draft === ABSENT ? undefined : draft,
    });
  }
  return clone(draft);
}

function slot(record: Record<string, unknown>, key: string): Slot {
  return Object.hasOwn(record, key) && record[key] !== undefined ? record[key] : ABSENT;
}

function same(a: Slot, b: Slot): boolean {
  if (a === ABSENT || b === ABSENT) return a === b;
  return sameValue(a, b);
}

function clone(value: Slot): Slot {
  return value === ABSENT ? ABSENT : structuredClone(value);
}
