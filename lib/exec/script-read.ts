// What a command runs, read for the owner's risk cues (lib/exec/risk.ts). analyzeShellCommand answers the gate's
// question and stops at the first construct that is not plain; this reader answers the owner's: every simple
// command anywhere in the tree (inside substitutions, subshells, loops, functions, `find -exec`), the files the
// redirections name, and the scripts handed to another shell (`sh -c '…'`, `bash -c`, `env sh -c`, `eval`, `su -c`,
// a here-doc fed to `sh`), read with the same grammar, recursively to a bounded depth. It never refuses: what it
// could not read (a syntax error, a program or script computed at run time, code given inline to an interpreter, a
// script file, scripts nested too deep) is listed in `unread`, which the card shows as "not analysed: read it whole".
import type { Node } from "web-tree-sitter";
import { LruMap } from "@/lib/policy/lru";
import { readShellTree } from "./shell-parser";
import { codePointLabel, INVISIBLE_CHARACTER } from "./visible-text";

export type ReadWord = { value: string; dynamic: boolean };
export type ScriptReading = {
  /** Every simple command found, outer and inner, as the words of the program that runs (past wrappers such as
   * sudo or env); dynamic words keep their text. */
  commands: ReadWord[][];
  /** The programs named, wrappers included (for the first-use cue). */
  executables: string[];
  /** Files named by redirections: `>`-like ones replace the file, `>>` appends, `<` reads. */
  redirects: Array<{ op: string; target: string }>;
  /** Why some of the command could not be read; empty when all of it was. */
  unread: string[];
};

/** Scripts inside scripts (`sh -c "bash -c '…'"`) are read this many levels deep, no further. */
export const MAX_SCRIPT_DEPTH = 4;
const MAX_COMMANDS = 400;
const MAX_SCRIPT_CHARS = 100_000;

const SHELLS = new Set([
  "sh",
  "bash",
  "dash",
  "zsh",
  "ksh",
  "mksh",
  "ash",
  "yash",
  "rbash",
  "lksh",
  "pdksh",
  "posh",
  "osh",
  "fish",
  "csh",
  "tcsh",
]);
// Shell options that take the next word as their value.
const SHELL_VALUE_OPTIONS = new Set(["-o", "+o", "-O", "+O", "--rcfile", "--init-file"]);
const INLINE_CODE: Record<string, ReadonlySet<string>> = Object.fromEntries(
  [
    [["python", "python2", "python3", "pypy", "pypy3"], ["-c"]],
    [
      ["perl", "ruby"],
      ["-e", "-E"],
    ],
    [
      ["node", "nodejs", "deno", "bun"],
      ["-e", "--eval", "-p", "--print"],
    ],
    [["php"], ["-r"]],
    [["lua", "luajit"], ["-e"]],
    [["Rscript"], ["-e"]],
    [["osascript"], ["-e"]],
    [["erl"], ["-eval"]],
    [["tclsh", "wish", "expect"], ["-c"]],
  ].flatMap(([names, flags]) => names!.map((n) => [n, new Set(flags)] as const)),
);
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "nice",
  "ionice",
  "nohup",
  "timeout",
  "stdbuf",
  "xargs",
  "time",
  "command",
  "exec",
  "setsid",
  "chrt",
  "taskset",
  "flock",
  "eatmydata",
  "fakeroot",
  "builtin",
  "busybox",
  "unbuffer",
  "chroot",
  "runuser",
  "su",
  "watch",
  "strace",
  "ltrace",
  "nsenter",
  "unshare",
  "firejail",
]);

function base(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

function kids(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

const SIMPLE_ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  a: "\x07",
  b: "\b",
  e: "\x1b",
  E: "\x1b",
  f: "\f",
  v: "\v",
  "\\": "\\",
  "'": "'",
  '"': '"',
  "?": "?",
};

/** $'…' as bash decodes it, so `$'\x72m' -rf /` reads as rm. */
function ansiC(body: string): string {
  return body.replace(
    /\\(x[0-9a-fA-F]{1,2}|u[0-9a-fA-F]{1,4}|U[0-9a-fA-F]{1,8}|[0-7]{1,3}|c.|.)/g,
    (_, esc: string) => {
      const kind = esc[0]!;
      if (kind === "x" || kind === "u" || kind === "U") return safeCodePoint(parseInt(esc.slice(1), 16));
      if (/[0-7]/.test(kind)) return safeCodePoint(parseInt(esc, 8));
      if (kind === "c") return String.fromCharCode(esc.charCodeAt(1) & 31);
      return SIMPLE_ESCAPES[esc] ?? `\\${esc}`;
    },
  );
}

function safeCodePoint(n: number): string {
  return Number.isFinite(n) && n >= 0 && n <= 0x10ffff ? String.fromCodePoint(n) : "\uFFFD";
}

/** The value bash gives a word, as far as it can be known before it runs; anything expanded keeps its text. */
function wordOf(node: Node): ReadWord {
  switch (node.type) {
    case "word":
    case "number":
      return { value: node.text.replace(/\\(.)/gs, "$1"), dynamic: false };
    case "raw_string":
      return { value: node.text.slice(1, -1), dynamic: false };
    case "ansi_c_string":
      return { value: ansiC(node.text.slice(2, -1)), dynamic: false };
    case "string":
    case "translated_string": {
      let value = "";
      let dynamic = false;
      for (const child of kids(node)) {
        if (child.type === '"' || child.type === '$"') continue;
        if (child.type === "string_content") value += child.text.replace(/\\([$`"\\])/g, "$1");
        else {
          value += child.text;
          dynamic = true;
        }
      }
      return { value, dynamic };
    }
    case "concatenation": {
      const parts = kids(node).map(wordOf);
      return { value: parts.map((p) => p.value).join(""), dynamic: parts.some((p) => p.dynamic) };
    }
    default:
      return { value: node.text, dynamic: true };
  }
}

type Reader = { out: ScriptReading; stopped: boolean };

function unread(r: Reader, why: string) {
  if (!r.out.unread.includes(why) && r.out.unread.length < 20) r.out.unread.push(why);
}

/** Reads one script into `r`, at nesting level `depth` (0 = the command itself). */
function readScript(r: Reader, script: string, depth: number) {
  if (depth > MAX_SCRIPT_DEPTH) return unread(r, `scripts are nested more than ${MAX_SCRIPT_DEPTH} levels deep`);
  if (script.length > MAX_SCRIPT_CHARS) return unread(r, `the script is longer than ${MAX_SCRIPT_CHARS} characters`);
  const invisible = INVISIBLE_CHARACTER.exec(script);
  if (invisible) unread(r, `an invisible or control character (${codePointLabel(invisible[0])}) changes how it reads`);
  const done = readShellTree(script, (root) => {
    if (root.hasError)
      unread(
        r,
        depth === 0
          ? "it is not valid shell syntax (cues come from the parts that could be read)"
          : "a script inside it is not valid shell syntax",
      );
    walk(r, root, depth);
    return true;
  });
  if (done === null) unread(r, "the shell parser is not loaded");
}

// Iterative, so a deeply nested tree cannot overflow the stack.
function walk(r: Reader, root: Node, depth: number) {
  const stack: Node[] = [root];
  while (stack.length > 0 && !r.stopped) {
    const node = stack.pop()!;
    if (node.type === "command") readCommand(r, node, depth);
    else if (node.type === "file_redirect") readRedirect(r, node);
    for (const child of kids(node).reverse()) stack.push(child);
  }
}

function readRedirect(r: Reader, node: Node) {
  const parts = kids(node);
  const op = parts.find((p) => !p.isNamed)?.type ?? "";
  const target = parts.filter((p) => p.isNamed && p.type !== "file_descriptor").at(-1);
  if (!target || ((op === ">&" || op === "<&") && /^\d+|-$/.test(target.text))) return;
  r.out.redirects.push({ op, target: wordOf(target).value });
}

function readCommand(r: Reader, node: Node, depth: number) {
  const words: ReadWord[] = [];
  let stdinScript: ReadWord | null = null;
  for (const part of kids(node)) {
    if (part.type === "command_name") words.push(...kids(part).map(wordOf));
    else if (part.type === "variable_assignment" || part.type === "file_redirect" || !part.isNamed) continue;
    else if (part.type === "herestring_redirect") stdinScript = wordOf(kids(part).find((k) => k.isNamed) ?? part);
    else words.push(wordOf(part));
  }
  // A here-doc belongs to the statement around the command: `sh <<EOF … EOF` feeds sh its script.
  const heredoc =
    node.parent?.type === "redirected_statement"
      ? kids(node.parent).find((k) => k.type === "heredoc_redirect")
      : undefined;
  const body = heredoc && kids(heredoc).find((k) => k.type === "heredoc_body");
  if (body)
    stdinScript = {
      value: body.text,
      dynamic:
        kids(body).some((k) => k.isNamed) &&
        !/^['"]/.test(kids(heredoc).find((k) => k.type === "heredoc_start")?.text ?? ""),
    };
  readArgv(r, words, depth, stdinScript);
}

/** One command's words: recorded, then looked into for the scripts and commands it runs in turn. */
function readArgv(r: Reader, words: ReadWord[], depth: number, stdinScript: ReadWord | null = null) {
  if (words.length === 0) return;
  if (r.out.commands.length >= MAX_COMMANDS) {
    r.stopped = true;
    return unread(r, `it runs more than ${MAX_COMMANDS} commands`);
  }
  const copy = [...words];
  const inner = copy.slice(innerStart(copy));
  if (!words[0]!.dynamic) addExecutable(r, base(words[0]!.value));
  if (inner.length === 0) return;
  r.out.commands.push(inner);
  if (inner[0]!.dynamic) return unread(r, `the program to run is computed when it runs (${inner[0]!.value})`);
  const exe = base(inner[0]!.value);
  addExecutable(r, exe);
  const nested = (script: ReadWord, what: string) =>
    script.dynamic
      ? unread(r, `the script given to ${what} is computed when it runs`)
      : readScript(r, script.value, depth + 1);

  if (SHELLS.has(exe)) {
    const { script, file, hasC } = shellOperands(inner);
    if (hasC) return script ? nested(script, `${exe} -c`) : unread(r, `${exe} -c is given no script`);
    if (file) return unread(r, `${exe} runs the script file ${file.value}, which is not shown here`);
    return stdinScript ? nested(stdinScript, exe) : unread(r, `${exe} runs a script read from its input`);
  }
  if (exe === "eval") {
    const args = inner.slice(1);
    return nested({ value: args.map((w) => w.value).join(" "), dynamic: args.some((w) => w.dynamic) }, "eval");
  }
  if (exe === "source" || exe === ".")
    return unread(r, `${exe} runs the script file ${inner[1]?.value ?? "(none)"} in the shell`);
  if (exe === "find") return findExecs(r, inner, depth);
  const inline = INLINE_CODE[exe];
  if (
    inline &&
    inner.some((w) => inline.has(w.value) || [...inline].some((f) => f.startsWith("--") && w.value.startsWith(`${f}=`)))
  )
    return unread(r, `${exe} runs a program given inline, which the cues do not read`);
}

function addExecutable(r: Reader, exe: string) {
  if (!r.out.executables.includes(exe)) r.out.executables.push(exe);
}

/** Where the program a wrapper runs starts (sudo -u root rm …, env -i X=1 sh -c …, su -c '…' is a script). */
function innerStart(words: ReadWord[]): number {
  let i = 0;
  for (let guard = 0; guard < 8 && i < words.length && WRAPPERS.has(base(words[i]!.value)); guard++) {
    const wrapper = base(words[i]!.value);
    i++;
    if (wrapper === "busybox") continue;
    // watch runs its arguments as one line through sh -c.
    if (wrapper === "watch") {
      while (i < words.length && words[i]!.value.startsWith("-"))
        i += VALUE_OPTIONS.has(`watch ${words[i]!.value}`) ? 2 : 1;
      if (i >= words.length) return i;
      const rest = words.slice(i);
      words.splice(i, words.length - i, {
        value: rest.map((w) => w.value).join(" "),
        dynamic: rest.some((w) => w.dynamic),
      });
      return splitLine(words, i);
    }
    while (i < words.length) {
      const w = words[i]!.value;
      // env -S 'sh -c …' and su -c '…' carry a whole command line: read it as the program's words.
      if (
        (wrapper === "env" && (w === "-S" || w === "--split-string")) ||
        ((wrapper === "su" || wrapper === "runuser") && (w === "-c" || w === "--command"))
      )
        return i + 1 < words.length ? splitLine(words, i + 1) : words.length;
      if (w.startsWith("--split-string=") && wrapper === "env")
        return splitLine(words, i, w.slice("--split-string=".length));
      if (!(w.startsWith("-") || (wrapper === "env" && w.includes("=")))) break;
      i += /^-[a-zA-Z]$/.test(w) && VALUE_OPTIONS.has(`${wrapper} ${w}`) ? 2 : 1;
    }
    if (wrapper === "timeout" && i < words.length && /^\d/.test(words[i]!.value)) i++;
    if (wrapper === "chroot" && i < words.length) i++;
  }
  return i;
}

// Replaces the line at `at` by the words of that line (a rough split on blanks: the script is read as the shell
// would, through sh -c, which is what env -S and su -c amount to).
function splitLine(words: ReadWord[], at: number, line = words[at]!.value): number {
  words.splice(
    at,
    words.length - at,
    { value: "sh", dynamic: false },
    { value: "-c", dynamic: false },
    { value: line, dynamic: words[at]!.dynamic },
  );
  return at;
}

const VALUE_OPTIONS = new Set([
  "sudo -u",
  "sudo -g",
  "sudo -C",
  "sudo -h",
  "sudo -p",
  "sudo -r",
  "sudo -t",
  "sudo -U",
  "sudo -D",
  "doas -u",
  "doas -C",
  "nice -n",
  "ionice -c",
  "ionice -n",
  "ionice -p",
  "timeout -s",
  "timeout -k",
  "xargs -I",
  "xargs -n",
  "xargs -P",
  "xargs -L",
  "xargs -d",
  "xargs -s",
  "xargs -E",
  "xargs -a",
  "chrt -p",
  "env -u",
  "env -C",
  "su -s",
  "su -g",
  "runuser -u",
  "runuser -g",
  "watch -n",
  "strace -o",
  "strace -e",
  "ltrace -o",
  "taskset -c",
]);

function shellOperands(words: ReadWord[]): { script?: ReadWord; file?: ReadWord; hasC: boolean } {
  let hasC = false;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value;
    if (w === "--" || w === "-") {
      const next = words[i + 1];
      return hasC ? { script: next, hasC } : { file: next, hasC };
    }
    if (SHELL_VALUE_OPTIONS.has(w)) {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(w)) {
      if (w.startsWith("-") && w.includes("c")) hasC = true;
      continue;
    }
    if (w.startsWith("--")) continue;
    return hasC ? { script: words[i], hasC } : { file: words[i], hasC };
  }
  return { hasC };
}

/** find … -exec CMD … ; runs CMD for each file found: each such command is read like any other. */
function findExecs(r: Reader, words: ReadWord[], depth: number) {
  for (let i = 1; i < words.length; i++) {
    if (!["-exec", "-execdir", "-ok", "-okdir"].includes(words[i]!.value)) continue;
    let end = i + 1;
    while (end < words.length && words[end]!.value !== ";" && words[end]!.value !== "+") end++;
    readArgv(r, words.slice(i + 1, end), depth);
    i = end;
  }
}

const cache = new LruMap<string, ScriptReading>(2_000);

/** Reads a command for its cues (cached: the same command is read for every list it appears in). */
export function readCommandForRisk(command: string): ScriptReading {
  const cached = cache.get(command);
  if (cached) return cached;
  const r: Reader = { out: { commands: [], executables: [], redirects: [], unread: [] }, stopped: false };
  readScript(r, command, 0);
  // A missing grammar is not the command's fault: the next read, once it is loaded, tries again.
  if (!r.out.unread.includes("the shell parser is not loaded")) cache.set(command, r.out);
  return r.out;
}
