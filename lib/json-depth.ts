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
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > limit) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

// JSON5's line terminators, which end a // comment.
const LINE_END = /[\n\r\u2028\u2029]/g;

/**
 * The same count for JSON5 (openclaw.json): strings in either quote, and comments, hide brackets. A text this scan
 * passes may still be invalid; it is refused by the parser, which then never recurses deeper than the limit.
 */
export function json5DepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 39) {
      // a string: to its closing quote, past escapes
      for (i++; i < text.length && text.charCodeAt(i) !== c; i++) if (text.charCodeAt(i) === 92) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      LINE_END.lastIndex = i;
      const end = LINE_END.exec(text);
      i = end ? end.index : text.length;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 1;
    } else if (c === 123 || c === 91) {
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
