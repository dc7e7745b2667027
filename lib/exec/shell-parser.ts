// Exec command analysis on a real shell grammar (tree-sitter-bash, compiled to WebAssembly). The analysis
// answers one question: is this command a plain sequence of words joined by `&&`, `||`, `;` or `|`, and if so,
// which argv does each part run? Anything the grammar shows as more than that (an expansion of any kind, a
// glob, a redirection, a here-doc, an assignment, a subshell, a comment, a line break, a background job...)
// makes the command "not plain": it can still run, but only after an owner has read and approved it.
// The rule is an allow-list of node types, so a construct this file does not know is never called plain.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { Language, Parser, type Node } from "web-tree-sitter";
import type { ShellAnalysis, ShellOperator, ShellSegment } from "@/lib/policy";
import { codePointLabel, INVISIBLE_CHARACTER } from "./visible-text";

let parser: Parser | null = null;
let loading: Promise<void> | null = null;

function grammarPath(): string {
  // Resolved from the app's root at run time, not through the bundler (both packages are server externals).
  const require = createRequire(path.join(process.cwd(), "package.json"));
  return require.resolve("tree-sitter-bash/tree-sitter-bash.wasm");
}

/** Loads the grammar once per process; every caller that analyses commands awaits this first. */
export function loadShellParser(): Promise<void> {
  loading ??= (async () => {
    await Parser.init();
    const language = await Language.load(new Uint8Array(readFileSync(/*turbopackIgnore: true*/ grammarPath())));
    const p = new Parser();
    p.setLanguage(language);
    parser = p;
  })().catch((error: unknown) => {
    loading = null;
    throw error;
  });
  return loading;
}

export function isShellParserLoaded(): boolean {
  return parser !== null;
}

class NotPlain extends Error {}

function notPlain(reason: string): never {
  throw new NotPlain(reason);
}

// Node types the grammar gives constructs that are more than plain words, named for the owner who reads why.
const CONSTRUCT_NAMES: Record<string, string> = {
  simple_expansion: "a variable expansion ($NAME)",
  expansion: "a parameter expansion (${...})",
  command_substitution: "a command substitution ($(...) or `...`)",
  process_substitution: "a process substitution (<(...) or >(...))",
  arithmetic_expansion: "an arithmetic expansion ($((...)))",
  brace_expression: "a brace expansion ({a..b})",
  ansi_c_string: "an ANSI-C string ($'...')",
  translated_string: 'a translated string ($"...")',
  redirected_statement: "a redirection or here-doc",
  file_redirect: "a redirection",
  heredoc_redirect: "a here-doc",
  herestring_redirect: "a here-string",
  variable_assignment: "a variable assignment",
  variable_assignments: "a variable assignment",
  subshell: "a subshell ( ... )",
  compound_statement: "a command group { ...; }",
  comment: "a comment",
  negated_command: "a negated command (!)",
  function_definition: "a function definition",
  test_command: "a test expression ([[ ... ]])",
  declaration_command: "a declaration (declare, export, local...)",
  unset_command: "unset",
};

function constructName(type: string): string {
  return CONSTRUCT_NAMES[type] ?? `shell syntax the analysis does not allow (${type})`;
}

// Unquoted characters that the shell gives a meaning (globs, expansions, escapes, history, tilde, grouping).
const SPECIAL_UNQUOTED = /[*?[\]{}~$`\\!()<>&|;'"\s]/;
// Inside double quotes only these still mean something to the shell.
const SPECIAL_DOUBLE_QUOTED = /[$`\\]/;

function kids(node: Node): Node[] {
  return node.children.filter((c): c is Node => c !== null);
}

/** Between the parts of a node only blanks may stand: nothing the grammar skipped may hide there. */
function assertOnlyBlanksBetween(command: string, node: Node, parts: Node[], allowGaps: boolean) {
  let at = node.startIndex;
  for (const part of parts) {
    const gap = command.slice(at, part.startIndex);
    if (allowGaps ? !/^[ \t]*$/.test(gap) : gap !== "") notPlain(`unexpected text "${gap.trim()}" in the command`);
    at = part.endIndex;
  }
  const tail = command.slice(at, node.endIndex);
  if (allowGaps ? !/^[ \t]*$/.test(tail) : tail !== "")
    notPlain(`unexpected text "${tail.trim()}" at the end of the command`);
}

/** The value bash gives one word, or a refusal when it would expand anything. */
function wordValue(command: string, node: Node): string {
  switch (node.type) {
    case "word":
    case "number": {
      if (SPECIAL_UNQUOTED.test(node.text))
        notPlain(
          `the word ${JSON.stringify(node.text)} has characters the shell expands (glob, tilde, escape or expansion)`,
        );
      return node.text;
    }
    case "raw_string":
      return node.text.slice(1, -1);
    case "string": {
      for (const child of kids(node)) {
        if (child.type === '"' || child.type === "string_content") continue;
        notPlain(constructName(child.type));
      }
      const inner = node.text.slice(1, -1);
      if (SPECIAL_DOUBLE_QUOTED.test(inner)) notPlain("a $, ` or \\ inside double quotes");
      return inner;
    }
    case "concatenation": {
      const parts = kids(node);
      assertOnlyBlanksBetween(command, node, parts, false);
      return parts.map((p) => wordValue(command, p)).join("");
    }
    default:
      return notPlain(constructName(node.type));
  }
}

function commandSegment(command: string, node: Node): ShellSegment {
  const parts = kids(node);
  assertOnlyBlanksBetween(command, node, parts, true);
  const argv: string[] = [];
  for (const part of parts) {
    if (part.type === "command_name") {
      const name = kids(part);
      if (name.length !== 1) notPlain("the command name is not a single word");
      argv.push(wordValue(command, name[0]!));
    } else {
      argv.push(wordValue(command, part));
    }
  }
  const executable = argv[0];
  if (executable === undefined || executable === "") notPlain("a part of the command has no command name");
  return { raw: node.text, argv, executable };
}

type Collected = { segments: ShellSegment[]; operators: ShellOperator[] };

function collect(command: string, node: Node, out: Collected) {
  switch (node.type) {
    case "command":
      out.segments.push(commandSegment(command, node));
      return;
    case "list":
    case "pipeline": {
      const parts = kids(node);
      assertOnlyBlanksBetween(command, node, parts, true);
      for (const part of parts) {
        if (part.isNamed) {
          collect(command, part, out);
        } else if (part.type === "&&" || part.type === "||" || (part.type === "|" && node.type === "pipeline")) {
          out.operators.push(part.type);
        } else {
          notPlain(part.type === "|&" ? "a pipe of stderr (|&)" : `the operator "${part.type}"`);
        }
      }
      return;
    }
    default:
      notPlain(constructName(node.type));
  }
}

/**
 * Splits a command into its parts when, and only when, every part is a plain word sequence; `ok: false` names
 * the first construct that needs an owner. Synchronous: callers await loadShellParser() once beforehand.
 */
export function analyzeShellCommand(command: string): ShellAnalysis {
  const out: Collected = { segments: [], operators: [] };
  if (!parser) return { ok: false, reason: "the shell parser is not loaded", ...out };
  try {
    if (/[\n\r]/.test(command)) notPlain("a line break (several lines, a line continuation or a here-doc)");
    if (command.includes("\0")) notPlain("a NUL byte");
    const invisible = INVISIBLE_CHARACTER.exec(command);
    if (invisible)
      notPlain(
        `an invisible or control character (${codePointLabel(invisible[0])}) that changes how the command reads`,
      );
    const tree = parser.parse(command);
    if (!tree) notPlain("the command could not be parsed");
    try {
      const root = tree.rootNode;
      if (root.hasError) notPlain("the command is not valid shell syntax");
      const parts = kids(root);
      assertOnlyBlanksBetween(command, root, parts, true);
      for (const part of parts) {
        if (part.isNamed) collect(command, part, out);
        else if (part.type === ";") out.operators.push(";");
        else notPlain(part.type === "&" ? "a background job (&)" : `the operator "${part.type}"`);
      }
      // A trailing ";" joins nothing; operators[i] must join segments[i] and segments[i + 1].
      if (out.operators.length === out.segments.length && out.operators.at(-1) === ";") out.operators.pop();
      if (out.segments.length === 0) notPlain("the command is empty");
      if (out.operators.length !== out.segments.length - 1)
        notPlain("the command's parts and operators do not line up");
    } finally {
      tree.delete();
    }
    return { ok: true, ...out };
  } catch (error) {
    if (error instanceof NotPlain) return { ok: false, reason: error.message, ...out };
    throw error;
  }
}

/**
 * The grammar's tree of a command, for readers that look at everything in it (the risk cues of lib/exec/risk.ts),
 * unlike analyzeShellCommand, which stops at the first construct that is not plain. Null until the grammar is loaded.
 */
export function readShellTree<T>(command: string, read: (root: Node) => T): T | null {
  if (!parser) return null;
  const tree = parser.parse(command);
  if (!tree) return null;
  try {
    return read(tree.rootNode);
  } finally {
    tree.delete();
  }
}
