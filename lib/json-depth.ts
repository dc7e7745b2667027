// How deep JSON nests, counted without the recursion it guards against: a few thousand levels fit in a few
// kilobytes and overflow every recursive walk after the parser (the sanitiser, JSON.stringify, the AI SDK, hashing).
// Request bodies, a model's tool-call arguments and an MCP server's structured results are checked against one
// limit. Hand-written: no JSON library says how deep a text nests without parsing it.

/** Nested objects and arrays deeper than this are refused or replaced wherever they come from outside. */
export const MAX_JSON_DEPTH = 64;

/** Depth of nested brackets outside strings, counted on the text, so a deep document is refused before parsing. */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Whether a parsed value nests deeper than `limit` (the walk stops there, so it cannot overflow itself). */
export function valueDepthExceeds(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== "object") return false;
  if (limit === 0) return true;
  return Object.values(value).some((child) => valueDepthExceeds(child, limit - 1));
}
