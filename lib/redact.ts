// Text from Node, database drivers and Prisma carries absolute host paths, SQL and engine messages. These
// helpers are what every public message (HTTP bodies, tool results, denials) passes through.

// Absolute POSIX paths (two or more segments) and Windows drive paths.
const HOST_PATH = /(?:[A-Za-z]:\\|(?<![\w.~-])\/)(?:[\w.@+~-]+[\\/])+[\w.@+~-]*/g;
// Text that only ever comes from the database layer (case-sensitive SQL, so plain English "select a mode" stays).
const DB_TEXT =
  /[Pp]risma|SQLITE_[A-Z]+|\bP[0-9]{4}\b|relation "[^"]*"|violates [a-z -]*constraint|syntax error at or near|ECONNREFUSED|\b(?:SELECT|INSERT INTO|DELETE FROM) |\bUPDATE "?\w+"? SET\b/;

/** Replaces absolute host paths in a message by `<path>`. Relative paths (workspace names) stay. */
export function redactHostPaths(text: string): string {
  return text.replace(HOST_PATH, "<path>");
}

/** True when the text looks like a database or driver message that must not be shown. */
export function looksInternal(text: string): boolean {
  return DB_TEXT.test(text);
}
