// PostgreSQL cannot store U+0000 in text or jsonb, and rejects a lone UTF-16 surrogate ("\ud800") in jsonb;
// SQLite stores both but they make the two databases disagree. Every string that reaches the database,
// and every parsed request body, goes through here: NUL removed, lone surrogates replaced by U+FFFD.

const NUL = /\u0000/g;

export function sanitizeText(text: string): string {
  const noNul = text.indexOf("\u0000") === -1 ? text : text.replace(NUL, "");
  return noNul.isWellFormed() ? noNul : noNul.toWellFormed();
}

/** A copy of the value with every string (keys included) sanitised; Dates, Buffers and the like are kept. */
export function sanitizeDeep<T>(value: T): T {
  return walk(value) as T;
}

function walk(value: unknown): unknown {
  if (typeof value === "string") return sanitizeText(value);
  if (Array.isArray(value)) return value.map(walk);
  if (value === null || typeof value !== "object") return value;
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[sanitizeText(k)] = walk(v);
  return out;
}
