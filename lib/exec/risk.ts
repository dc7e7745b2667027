// Risk cues for an approval request, so an owner sees at a glance that `rm -rf build` is not `echo hi`. Computed
// from the command itself, read with the gate's grammar (tree-sitter-bash) by lib/exec/script-read.ts: every command
// in it, the scripts it hands to another shell (`sh -c`, `eval`, …) read the same way, and the files its
// redirections name; never by matching the command text, never from anything the requester wrote about it. A cue
// is a hint for the reader, not a gate: the gates decide. What could not be read gets the "not analysed: read it
// whole" cue, so an obfuscated command never shows fewer cues than a plain one.
import type { ShellAnalysis } from "@/lib/policy";
import { readCommandForRisk } from "./script-read";
import { RISK_LABELS as LABELS, type RiskKind } from "./risk-kinds";

export type { RiskKind } from "./risk-kinds";
export type RiskCue = { kind: RiskKind; label: string; detail: string };

// Wrappers whose arguments name the program that really runs (sudo rm …, env X=1 curl …, timeout 5 wget …).
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
]);

const DELETERS = new Set(["rm", "rmdir", "unlink", "shred", "wipe", "srm", "mkfs", "wipefs", "fdisk", "parted"]);
// Programs whose normal use replaces the content of an existing file.
const OVERWRITERS = new Set(["mv", "cp", "dd", "truncate", "tee", "install", "ln", "rsync"]);
const NETWORK = new Set([
  "curl",
  "wget",
  "ssh",
  "scp",
  "sftp",
  "rsync",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "ftp",
  "ping",
  "dig",
  "nslookup",
  "host",
  "http",
  "https",
  "aria2c",
  "gh",
  "aws",
  "gcloud",
  "az",
]);
// Multi-command tools whose listed subcommands reach the network.
const NETWORK_SUBCOMMANDS: Record<string, ReadonlySet<string>> = {
  git: new Set(["clone", "fetch", "pull", "push", "ls-remote", "submodule", "remote"]),
  npm: new Set(["install", "i", "ci", "add", "update", "publish", "view", "exec"]),
  pnpm: new Set(["install", "i", "add", "update", "publish", "dlx"]),
  yarn: new Set(["install", "add", "upgrade", "publish", "dlx"]),
  pip: new Set(["install", "download"]),
  pip3: new Set(["install", "download"]),
  apt: new Set(["install", "update", "upgrade", "download"]),
  "apt-get": new Set(["install", "update", "upgrade", "download"]),
  docker: new Set(["pull", "push", "login", "run"]),
  cargo: new Set(["install", "fetch", "publish", "update"]),
  go: new Set(["get", "install", "mod"]),
};
const DESTRUCTIVE_SUBCOMMANDS: Record<string, (argv: string[]) => string | null> = {
  git: (a) =>
    a[1] === "clean"
      ? "git clean deletes untracked files"
      : a[1] === "reset" && a.includes("--hard")
        ? "git reset --hard discards changes"
        : a[1] === "push" && a.some((w) => w === "-f" || w.startsWith("--force"))
          ? "git push --force overwrites remote history"
          : null,
  find: (a) => (a.includes("-delete") ? "find -delete deletes what it finds" : null),
  sed: (a) =>
    a.some((w) => w === "-i" || w.startsWith("-i") || w.startsWith("--in-place"))
      ? "sed -i rewrites files in place"
      : null,
  chmod: (a) => (a.some(isRecursiveFlag) ? "chmod -R changes a whole tree" : null),
  chown: (a) => (a.some(isRecursiveFlag) ? "chown -R changes a whole tree" : null),
};

// Options of those wrappers that take the next word as their value (sudo -u root rm …, nice -n 5 rm …).
const VALUE_OPTIONS: Record<string, ReadonlySet<string>> = {
  sudo: new Set(["-u", "-g", "-C", "-h", "-p", "-r", "-t", "-U", "-D"]),
  doas: new Set(["-u", "-C"]),
  nice: new Set(["-n"]),
  ionice: new Set(["-c", "-n", "-p"]),
  timeout: new Set(["-s", "-k"]),
  xargs: new Set(["-I", "-n", "-P", "-L", "-d", "-s", "-E", "-a"]),
  chrt: new Set(["-p"]),
  env: new Set(["-u", "-C", "-S"]),
};

function base(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}

function isRecursiveFlag(word: string): boolean {
  return word === "--recursive" || (/^-[a-zA-Z]+$/.test(word) && /[rR]/.test(word));
}

/** The argv that really runs: past wrapper programs, their options and `NAME=value` words. */
export function effectiveArgv(argv: string[]): string[] {
  let rest = argv;
  for (let guard = 0; guard < 8 && rest.length > 0 && WRAPPERS.has(base(rest[0]!)); guard++) {
    const wrapper = base(rest[0]!);
    let i = 1;
    while (i < rest.length && (rest[i]!.startsWith("-") || (wrapper === "env" && rest[i]!.includes("="))))
      i += VALUE_OPTIONS[wrapper]?.has(rest[i]!) ? 2 : 1;
    if (wrapper === "timeout" && i < rest.length && /^\d/.test(rest[i]!)) i++;
    rest = rest.slice(i);
  }
  return rest;
}

function destructive(argv: string[]): string | null {
  const exe = base(argv[0] ?? "");
  if (DELETERS.has(exe) || exe.startsWith("mkfs."))
    return argv.slice(1).some(isRecursiveFlag) && exe === "rm"
      ? "rm -r deletes whole directories"
      : `${exe} deletes data`;
  if (
    OVERWRITERS.has(exe) &&
    !argv.includes("-n") &&
    !argv.includes("--no-clobber") &&
    !(exe === "tee" && argv.includes("-a"))
  )
    return `${exe} can overwrite existing files`;
  return DESTRUCTIVE_SUBCOMMANDS[exe]?.(argv) ?? null;
}

function network(argv: string[]): string | null {
  const exe = base(argv[0] ?? "");
  if (NETWORK.has(exe)) return `${exe} reaches the network`;
  const sub = argv.slice(1).find((w) => !w.startsWith("-"));
  if (sub && NETWORK_SUBCOMMANDS[exe]?.has(sub)) return `${exe} ${sub} reaches the network`;
  if (argv.some((w) => /^[a-z][a-z0-9+.-]*:\/\//i.test(w))) return `${exe} is given a URL`;
  return null;
}

/** A path argument that leaves the workspace (the working directory of every command and file tool). */
export function outsidePath(word: string): boolean {
  const value = word.startsWith("-") && word.includes("=") ? word.slice(word.indexOf("=") + 1) : word;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false; // a URL, counted as network
  if (value.startsWith("/")) return value !== "/dev/null" && !/^\/dev\/std(in|out|err)$/.test(value);
  if (value.startsWith("~")) return true;
  return (
    value
      .split("/")
      .reduce(
        (depth, part) =>
          depth < 0 ? depth : part === ".." ? depth - 1 : part === "." || part === "" ? depth : depth + 1,
        0,
      ) < 0
  );
}

function add(cues: RiskCue[], kind: RiskKind, detail: string) {
  const same = cues.find((c) => c.kind === kind);
  if (same) {
    if (!same.detail.includes(detail)) same.detail = `${same.detail}; ${detail}`;
  } else cues.push({ kind, label: LABELS[kind], detail });
}

function argvCues(cues: RiskCue[], words: string[]) {
  const argv = effectiveArgv(words);
  if (argv.length === 0) return;
  const d = destructive(argv);
  if (d) add(cues, "destructive", d);
  const n = network(argv);
  if (n) add(cues, "network", n);
  const outside = argv.slice(1).filter(outsidePath);
  if (outside.length)
    add(
      cues,
      "outside-workspace",
      `${base(argv[0]!)} names ${outside.slice(0, 3).join(", ")}${outside.length > 3 ? ", …" : ""}`,
    );
}

const OVERWRITING_REDIRECTS = new Set([">", ">|", "&>", ">&"]);

function commandOf(args: unknown): string | null {
  const command = typeof args === "object" && args !== null ? (args as { command?: unknown }).command : undefined;
  return typeof command === "string" ? command : null;
}

/** The programs a command names, wrappers and the scripts it hands to a shell included (for first use). */
export function executablesOfCommand(command: string): string[] {
  return readCommandForRisk(command).executables;
}

/** The executables of a stored analysis (base names, past wrappers), for requests stored without their command. */
export function executablesOf(analysis: Pick<ShellAnalysis, "segments"> | null | undefined): string[] {
  const out = new Set<string>();
  for (const segment of analysis?.segments ?? []) {
    const exe = segment.argv[0];
    if (exe) out.add(base(exe));
    const inner = effectiveArgv(segment.argv)[0];
    if (inner) out.add(base(inner));
  }
  return [...out];
}

/**
 * The cues of one request. `knownExecutables` are those this requester ran before (by earlier requests); null
 * when that history is not known, which gives no first-use cue rather than a wrong one.
 */
export function assessRisk({
  toolName,
  args,
  command,
  analysis,
  knownExecutables,
}: {
  toolName: string;
  args: unknown;
  command?: string | null;
  analysis?: ShellAnalysis | null;
  knownExecutables: ReadonlySet<string> | null;
}): RiskCue[] {
  const cues: RiskCue[] = [];
  const text = command ?? (toolName === "exec" ? commandOf(args) : null);
  let executables: string[] = [];
  if (text !== null) {
    const reading = readCommandForRisk(text);
    if (reading.unread.length) add(cues, "not-analysed", reading.unread.join("; "));
    for (const words of reading.commands)
      argvCues(
        cues,
        words.map((w) => w.value),
      );
    for (const { op, target } of reading.redirects) {
      if (OVERWRITING_REDIRECTS.has(op) && !/^\/dev\/(null|std(out|err)|tty)$/.test(target))
        add(cues, "destructive", `a redirection (${op}) can overwrite ${target}`);
      if (outsidePath(target)) add(cues, "outside-workspace", `a redirection names ${target}`);
    }
    executables = reading.executables;
  } else if (analysis) {
    // A stored request without its command text: the gate's analysis is all there is.
    for (const segment of analysis.segments) argvCues(cues, segment.argv);
    if (!analysis.ok) add(cues, "not-analysed", analysis.reason ?? "the command could not be split");
    executables = executablesOf(analysis);
  }
  const path = typeof args === "object" && args !== null ? (args as { path?: unknown }).path : undefined;
  if (typeof path === "string") {
    if (toolName === "write") add(cues, "destructive", `write replaces ${path} whole`);
    if (outsidePath(path)) add(cues, "outside-workspace", `${toolName} names ${path}`);
  }
  if (knownExecutables) {
    const fresh = executables.filter((e) => !knownExecutables.has(e));
    if (fresh.length) add(cues, "first-use", `first request by this user to run ${fresh.join(", ")}`);
  }
  return cues;
}
