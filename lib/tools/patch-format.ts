// Parser and pure applier for the "*** Begin Patch" format (OpenAI/Codex apply_patch). No file system here:
// the apply_patch tool validates every operation in memory with these before it writes anything.
import { AppError } from "@/lib/errors";

export type PatchHunk = {
  /** Text after "@@ " used to locate the hunk, if any. */
  anchor: string | null;
  oldLines: string[];
  newLines: string[];
  /** "*** End of File" followed the hunk: it must match at the end of the file. */
  atEnd: boolean;
};

export type PatchOperation =
  | { kind: "add"; path: string; lines: string[] }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo: string | null; hunks: PatchHunk[] };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const END_OF_FILE = "*** End of File";

function patchError(message: string, line?: number): AppError {
  return new AppError(
    "INVALID_ARGUMENTS",
    line === undefined ? `invalid patch: ${message}` : `invalid patch (line ${line}): ${message}`,
  );
}

function newHunk(anchor: string | null): PatchHunk {
  return { anchor, oldLines: [], newLines: [], atEnd: false };
}

export function parsePatch(patch: string): PatchOperation[] {
  const lines = patch.replace(/\r\n/g, "\n").split("\n");
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === "") lines.pop();
  while (lines.length > 0 && lines[0]!.trim() === "") lines.shift();
  if (lines[0]?.trim() !== BEGIN) throw patchError(`the first line must be "${BEGIN}"`);
  if (lines[lines.length - 1]?.trim() !== END || lines.length < 2) throw patchError(`the last line must be "${END}"`);

  const ops: PatchOperation[] = [];
  let current: PatchOperation | null = null;
  let hunk: PatchHunk | null = null;

  for (let i = 1; i < lines.length - 1; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (line.startsWith(ADD) || line.startsWith(DELETE) || line.startsWith(UPDATE)) {
      hunk = null;
      const path = line.slice(line.indexOf(": ") + 2).trim();
      if (!path) throw patchError("missing file path", lineNo);
      current = line.startsWith(ADD)
        ? { kind: "add", path, lines: [] }
        : line.startsWith(DELETE)
          ? { kind: "delete", path }
          : { kind: "update", path, moveTo: null, hunks: [] };
      ops.push(current);
      continue;
    }
    if (!current) throw patchError(`expected a file header, got "${line}"`, lineNo);
    if (current.kind === "add") {
      if (!line.startsWith("+")) throw patchError(`lines of an added file must start with "+"`, lineNo);
      current.lines.push(line.slice(1));
    } else if (current.kind === "delete") {
      throw patchError(`unexpected content after "${DELETE}${current.path}"`, lineNo);
    } else if (line.startsWith(MOVE) && !hunk) {
      current.moveTo = line.slice(MOVE.length).trim() || null;
    } else if (line.trim() === END_OF_FILE) {
      if (!hunk) throw patchError(`"${END_OF_FILE}" outside a hunk`, lineNo);
      hunk.atEnd = true;
    } else if (line.startsWith("@@")) {
      hunk = newHunk(line.slice(2).trim() || null);
      current.hunks.push(hunk);
    } else if (line === "" || line.startsWith(" ") || line.startsWith("-") || line.startsWith("+")) {
      if (!hunk) {
        hunk = newHunk(null);
        current.hunks.push(hunk);
      }
      // An empty line inside a hunk is an empty context line whose leading space was trimmed.
      const marker = line[0] ?? " ";
      const text = line.slice(1);
      if (marker !== "+") hunk.oldLines.push(text);
      if (marker !== "-") hunk.newLines.push(text);
    } else {
      throw patchError(`hunk lines must start with " ", "-" or "+", got "${line}"`, lineNo);
    }
  }
  if (ops.length === 0) throw patchError("no file operations");
  for (const op of ops) {
    if (op.kind === "update" && op.hunks.length === 0 && !op.moveTo) throw patchError(`no hunks for ${op.path}`);
  }
  return ops;
}

/** Finds `needle` in `lines` at or after `from`; exact first, then ignoring trailing whitespace. */
function seek(lines: string[], needle: string[], from: number, atEnd: boolean): number {
  const matchers = [(a: string, b: string) => a === b, (a: string, b: string) => a.trimEnd() === b.trimEnd()];
  for (const same of matchers) {
    const last = lines.length - needle.length;
    const starts = atEnd ? [last] : Array.from({ length: Math.max(0, last - from + 1) }, (_, k) => from + k);
    for (const start of starts) {
      if (start < from) continue;
      if (needle.every((n, j) => same(lines[start + j]!, n))) return start;
    }
  }
  return -1;
}

/** Applies the hunks of one update to file text, or throws naming the first hunk that does not match. */
export function applyHunks(path: string, content: string, hunks: PatchHunk[]): string {
  // An empty file gains a trailing newline like any file created by the patch.
  const endsWithNewline = content === "" || content.endsWith("\n");
  const lines = content === "" ? [] : content.split("\n");
  if (content.endsWith("\n")) lines.pop();
  let cursor = 0;
  hunks.forEach((hunk, index) => {
    const label = `hunk ${index + 1} of ${path}`;
    if (hunk.anchor !== null) {
      const at = seek(lines, [hunk.anchor], cursor, false);
      if (at === -1) throw patchError(`${label}: context "@@ ${hunk.anchor}" was not found`);
      cursor = at + 1;
    }
    if (hunk.oldLines.length === 0) {
      // Pure insertion: after the anchor if there is one, otherwise at the end of the file.
      const at = hunk.anchor !== null ? cursor : lines.length;
      lines.splice(at, 0, ...hunk.newLines);
      cursor = at + hunk.newLines.length;
      return;
    }
    const at = seek(lines, hunk.oldLines, cursor, hunk.atEnd);
    if (at === -1) {
      throw patchError(`${label} does not match the file; expected these lines:\n${hunk.oldLines.join("\n")}`);
    }
    lines.splice(at, hunk.oldLines.length, ...hunk.newLines);
    cursor = at + hunk.newLines.length;
  });
  const text = lines.join("\n");
  return endsWithNewline && text !== "" ? `${text}\n` : text;
}
