// Tool arguments as the audit log keeps them: every string passed through the admin's redaction patterns
// (exec settings `redact`), long strings shortened, so an audit row says what ran without storing secrets.
const MAX_STRING = 2_000;
const MAX_DEPTH = 8;
// An argument named like a secret is never kept, whatever its value looks like.
const SECRET_KEY = /(pass(word|wd)?|secret|token|api[_-]?key|authorization|credential)/i;

export function compileRedactions(patterns: readonly string[]): RegExp[] {
  return patterns.flatMap((source) => {
    try {
      return [new RegExp(source, "gi")];
    } catch {
      return [];
    }
  });
}

// Every pattern is matched against the original text and the union of the matches is replaced: replacing one
// pattern's matches first could hide another's (the default `authorization: ` pattern took "Bearer" alone and the
// Bearer pattern then no longer saw the token behind it, which stayed in clear).
function redactString(value: string, patterns: readonly RegExp[]): string {
  const ranges: Array<[number, number]> = [];
  for (const pattern of patterns) {
    const global = pattern.global ? pattern : new RegExp(pattern.source, `${pattern.flags}g`);
    for (const m of value.matchAll(global)) if (m[0].length) ranges.push([m.index, m.index + m[0].length]);
  }
  ranges.sort((a, b) => a[0] - b[0]);
  let out = "";
  let at = 0;
  for (const [start, end] of ranges) {
    if (end <= at) continue;
    if (start >= at) out += `${value.slice(at, start)}[redacted]`;
    at = end;
  }
  out += value.slice(at);
  return out.length > MAX_STRING ? `${out.slice(0, MAX_STRING)}… [${out.length - MAX_STRING} more characters]` : out;
}

export function redactForAudit(value: unknown, patterns: readonly RegExp[], depth = 0): unknown {
  if (typeof value === "string") return redactString(value, patterns);
  if (value === null || typeof value !== "object") return value;
  if (depth >= MAX_DEPTH) return "[nested too deep]";
  if (Array.isArray(value)) return value.slice(0, 100).map((v) => redactForAudit(v, patterns, depth + 1));
  return Object.fromEntries(
    Object.entries(value)
      .slice(0, 100)
      .map(([k, v]) => [k, SECRET_KEY.test(k) ? "[redacted]" : redactForAudit(v, patterns, depth + 1)]),
  );
}
