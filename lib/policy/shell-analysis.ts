// A deliberately small shell tokenizer for exec approvals. It understands only what is needed to name every
// executable a command line runs; anything that could run or read something it cannot see (redirections,
// substitutions, subshells, expanding heredocs, background jobs) makes the analysis fail, which routes the
// command to an approval instead of guessing.
export type ShellOperator = "&&" | "||" | ";" | "|";

export type ShellSegment = {
  /** The segment's text as written (trimmed). */
  raw: string;
  /** Words after quote removal, leading VAR=value assignments excluded. */
  argv: string[];
  executable: string;
  assignments: string[];
};

export type ShellAnalysis = {
  ok: boolean;
  reason?: string;
  segments: ShellSegment[];
  /** operators[i] joins segments[i] and segments[i + 1]. */
  operators: ShellOperator[];
};

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

class ShellRejection extends Error {}

function reject(reason: string): never {
  throw new ShellRejection(reason);
}

type Heredoc = { delimiter: string; quoted: boolean; stripTabs: boolean };

function readDoubleQuoted(command: string, start: number): { text: string; end: number } {
  let text = "";
  let i = start + 1;
  while (i < command.length) {
    const ch = command[i];
    const next = command[i + 1];
    if (ch === "\\" && next !== undefined && '"\\$`\n'.includes(next)) {
      if (next !== "\n") text += next;
      i += 2;
    } else if (ch === '"') {
      return { text, end: i + 1 };
    } else if (ch === "`") {
      reject("command substitution with backticks");
    } else if (ch === "$" && next === "(") {
      reject("command substitution $(...)");
    } else {
      text += ch;
      i += 1;
    }
  }
  return reject("unterminated double quote");
}

function readHeredocDelimiter(command: string, start: number): { heredoc: Omit<Heredoc, "stripTabs">; end: number } {
  let i = start;
  while (command[i] === " " || command[i] === "\t") i += 1;
  const quote = command[i];
  if (quote === "'" || quote === '"') {
    const close = command.indexOf(quote, i + 1);
    if (close < 0) reject("unterminated heredoc delimiter");
    return { heredoc: { delimiter: command.slice(i + 1, close), quoted: true }, end: close + 1 };
  }
  const match = /^[A-Za-z0-9_.-]+/.exec(command.slice(i));
  if (!match) return reject("heredoc without a delimiter");
  return { heredoc: { delimiter: match[0], quoted: false }, end: i + match[0].length };
}

function consumeHeredocBodies(command: string, start: number, pending: Heredoc[]): number {
  let i = start;
  for (const heredoc of pending) {
    let body = "";
    for (;;) {
      const lineEnd = command.indexOf("\n", i);
      const end = lineEnd < 0 ? command.length : lineEnd;
      const line = command.slice(i, end);
      i = end + 1;
      if ((heredoc.stripTabs ? line.replace(/^\t+/, "") : line) === heredoc.delimiter) break;
      if (lineEnd < 0) reject(`unterminated heredoc (missing ${heredoc.delimiter})`);
      body += `${line}\n`;
    }
    if (!heredoc.quoted && /[$`]/.test(body)) {
      reject("unquoted heredoc expansion ($ or ` in the body of an unquoted <<delimiter)");
    }
  }
  return i;
}

function toSegment(raw: string, words: string[]): ShellSegment {
  let index = 0;
  while (index < words.length && ASSIGNMENT.test(words[index] ?? "")) index += 1;
  const assignments = words.slice(0, index);
  const argv = words.slice(index);
  const executable = argv[0];
  if (executable === undefined) reject("segment has only variable assignments, no command");
  if (executable.includes("$")) reject("executable is a variable expansion");
  if (/[*?[]/.test(executable)) reject("executable contains a glob pattern");
  return { raw, argv, executable, assignments };
}

export function analyzeShellCommand(command: string): ShellAnalysis {
  const segments: ShellSegment[] = [];
  const operators: ShellOperator[] = [];
  let words: string[] = [];
  let word: string | null = null;
  let segmentStart = 0;
  let pendingOperator: ShellOperator | null = null;
  let heredocs: Heredoc[] = [];
  const endWord = () => {
    if (word !== null) words.push(word);
    word = null;
  };
  const endSegment = (operator: ShellOperator | null, at: number, next: number) => {
    endWord();
    const raw = command.slice(segmentStart, at).trim();
    segmentStart = next;
    if (words.length === 0) {
      if (pendingOperator !== null && pendingOperator !== ";") {
        reject(operator === null ? `command ends with "${pendingOperator}"` : `missing command after "${pendingOperator}"`);
      }
      if (operator !== null && operator !== ";") reject(`missing command before "${operator}"`);
      if (operator === ";" && pendingOperator === ";") reject("empty command between separators");
      return;
    }
    if (pendingOperator !== null) operators.push(pendingOperator);
    segments.push(toSegment(raw, words));
    words = [];
    pendingOperator = operator;
  };
  try {
    let i = 0;
    while (i < command.length) {
      const ch = command[i] as string;
      const next = command[i + 1];
      if (ch === "'") {
        const close = command.indexOf("'", i + 1);
        if (close < 0) reject("unterminated single quote");
        word = (word ?? "") + command.slice(i + 1, close);
        i = close + 1;
      } else if (ch === '"') {
        const { text, end } = readDoubleQuoted(command, i);
        word = (word ?? "") + text;
        i = end;
      } else if (ch === "\\") {
        if (next === undefined) reject("trailing backslash");
        if (next !== "\n") word = (word ?? "") + next;
        i += 2;
      } else if (ch === "`") {
        reject("command substitution with backticks");
      } else if (ch === "$" && next === "(") {
        reject("command substitution $(...)");
      } else if (ch === " " || ch === "\t") {
        endWord();
        i += 1;
      } else if (ch === "\n" || ch === "\r") {
        // A blank line, or a line break after && / || / |, continues the command instead of ending a segment.
        if (word !== null || words.length > 0) endSegment(";", i, i + 1);
        i = heredocs.length > 0 ? consumeHeredocBodies(command, i + 1, heredocs) : i + 1;
        segmentStart = i;
        heredocs = [];
      } else if (ch === "&") {
        if (next === "&") {
          endSegment("&&", i, i + 2);
          i += 2;
        } else {
          reject(next === ">" ? "redirection (&>)" : "background operator &");
        }
      } else if (ch === "|") {
        if (next === "&") reject("redirection (|&)");
        const operator: ShellOperator = next === "|" ? "||" : "|";
        endSegment(operator, i, i + operator.length);
        i += operator.length;
      } else if (ch === ";") {
        if (next === ";") reject("case terminator ;;");
        endSegment(";", i, i + 1);
        i += 1;
      } else if (ch === ">") {
        const fd = word !== null && /^\d+$/.test(word) ? word : "";
        reject(next === ">" ? `redirection (${fd}>>)` : next === "(" ? "process substitution >(...)" : `redirection (${fd}>)`);
      } else if (ch === "<") {
        if (next === "(") reject("process substitution <(...)");
        if (next !== "<") reject("redirection (<)");
        if (command[i + 2] === "<") reject("here-string (<<<)");
        const stripTabs = command[i + 2] === "-";
        endWord();
        const { heredoc, end } = readHeredocDelimiter(command, i + (stripTabs ? 3 : 2));
        heredocs.push({ ...heredoc, stripTabs });
        i = end;
      } else if (ch === "(" || ch === ")") {
        reject("subshell or grouping ( )");
      } else {
        word = (word ?? "") + ch;
        i += 1;
      }
    }
    if (heredocs.length > 0) reject("heredoc without a body");
    endSegment(null, command.length, command.length);
    if (segments.length === 0) reject("empty command");
    return { ok: true, segments, operators };
  } catch (error) {
    if (error instanceof ShellRejection) return { ok: false, reason: error.message, segments, operators };
    throw error;
  }
}
