// Sandboxed exec with bubblewrap (bwrap). In a sandboxed session a command sees a read-only /usr (plus the
// few /etc files programs need), its own /proc, /dev and an empty /tmp, no network (a fresh, empty network
// namespace from --unshare-all), and exactly one writable place: the user's workspace, bound at its real path.
// CPU time, address space and process count are capped with prlimit inside; wall time and output are capped
// by runCommand. When bwrap cannot start, sandboxed exec is refused: it never falls back to running unsandboxed.
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import { chmod, lchown, readdir, stat } from "node:fs/promises";
import path from "node:path";
import { AppError } from "@/lib/errors";
import { runCommand, type RunCommandOptions, type RunCommandResult } from "./exec-runner";

export type SandboxLimits = {
  /** RLIMIT_CPU: a busy loop is killed after this much CPU time. */
  cpuSeconds: number;
  /** RLIMIT_AS per process. */
  memoryBytes: number;
  /** RLIMIT_NPROC: counted inside the sandbox's own user namespace, so a fork bomb stops here. */
  maxProcesses: number;
};

export type SandboxConfig = {
  /** bwrap binary; tests point it at a missing path to prove the fail-closed refusal. */
  bwrapPath?: string;
  limits?: Partial<SandboxLimits>;
};

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({ cpuSeconds: 10, memoryBytes: 1024 * 1024 * 1024, maxProcesses: 64 });

// RLIMIT_NPROC is never enforced for real uid 0, so a server running as root starts bwrap as nobody:
// the workspace is handed to that uid before each run (see prepareWorkspace).
const SANDBOX_UID = 65534;
const SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin";
// The files under /etc that ordinary programs read (dynamic linker, alternatives symlinks, names, time zone).
const ETC_FILES = ["alternatives", "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "passwd", "group", "nsswitch.conf"];
// Merged-/usr systems have these as symlinks into /usr; older ones as real directories.
const TOP_LEVEL = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

function runningAsRoot(): boolean {
  return process.getuid?.() === 0;
}

function limitsOf(config: SandboxConfig): SandboxLimits {
  return { ...DEFAULT_SANDBOX_LIMITS, ...config.limits };
}

/** setpriv in front of bwrap when the server is root (see SANDBOX_UID); nothing otherwise. */
function privilegePrefix(): string[] {
  return runningAsRoot() ? ["setpriv", `--reuid=${SANDBOX_UID}`, `--regid=${SANDBOX_UID}`, "--clear-groups", "--"] : [];
}

function systemView(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const name of TOP_LEVEL) {
    const source = `/${name}`;
    // Host paths read at run time, not files of the app: keep the bundler from tracing them.
    if (!existsSync(/*turbopackIgnore: true*/ source)) continue;
    const stat = lstatSync(/*turbopackIgnore: true*/ source);
    if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(/*turbopackIgnore: true*/ source), source);
    else if (stat.isDirectory()) args.push("--ro-bind", source, source);
  }
  for (const name of ETC_FILES) args.push("--ro-bind-try", `/etc/${name}`, `/etc/${name}`);
  return args;
}

/** The full argv: [setpriv ...] bwrap <namespaces and mounts> prlimit <limits> /bin/sh -c <command>. */
export function buildSandboxArgv({ command, workspaceDir, config = {} }: { command: string; workspaceDir: string; config?: SandboxConfig }): string[] {
  const limits = limitsOf(config);
  return [
    ...privilegePrefix(),
    config.bwrapPath ?? "bwrap",
    "--unshare-all",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    ...systemView(),
    // /tmp first: a workspace under /tmp is then bound on top of the fresh tmpfs instead of hidden by it.
    "--tmpfs",
    "/tmp",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--bind",
    workspaceDir,
    workspaceDir,
    // The root bwrap builds is a writable tmpfs; make it read-only (submounts such as the workspace keep theirs).
    "--remount-ro",
    "/",
    "--chdir",
    workspaceDir,
    "--clearenv",
    "--setenv",
    "PATH",
    SANDBOX_PATH,
    "--setenv",
    "HOME",
    workspaceDir,
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--",
    "/usr/bin/prlimit",
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    "--",
    "/bin/sh",
    "-c",
    command,
  ];
}

const probes = new Map<string, Promise<{ ok: true } | { ok: false; reason: string }>>();

/** Whether bwrap can start here at all; probed once per binary (`bwrap --unshare-all --ro-bind / / true`). */
export function probeSandbox(config: SandboxConfig = {}): Promise<{ ok: true } | { ok: false; reason: string }> {
  const bwrap = config.bwrapPath ?? "bwrap";
  let probe = probes.get(bwrap);
  if (!probe) {
    const argv = [...privilegePrefix(), bwrap, "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "/usr/bin/prlimit", "--nproc=8", "true"];
    probe = runCommand({ command: "true", cwd: "/", timeoutMs: 10_000, maxOutputBytes: 4096, argv })
      .then((r) => (r.exitCode === 0 ? { ok: true as const } : { ok: false as const, reason: (r.stderr || `exit ${r.exitCode ?? r.signal}`).trim() }))
      .catch((error: unknown) => ({ ok: false as const, reason: error instanceof Error ? error.message : String(error) }));
    probes.set(bwrap, probe);
  }
  return probe;
}

/**
 * Root servers only: hands the workspace to the sandbox uid (lchown never follows a link out of it), and lets
 * that uid pass through the workspace root (search only, no listing) so bwrap can bind the workspace.
 */
async function prepareWorkspace(dir: string): Promise<void> {
  if (!runningAsRoot()) return;
  const parent = path.dirname(dir);
  const mode = (await stat(parent)).mode & 0o7777;
  if ((mode & 0o001) === 0) await chmod(parent, mode | 0o001);
  await chownTree(dir);
}

async function chownTree(dir: string): Promise<void> {
  await lchown(dir, SANDBOX_UID, SANDBOX_UID);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) await chownTree(full);
    else await lchown(full, SANDBOX_UID, SANDBOX_UID);
  }
}

export async function runSandboxedCommand(options: Omit<RunCommandOptions, "argv" | "env">, config: SandboxConfig = {}): Promise<RunCommandResult> {
  const probe = await probeSandbox(config);
  if (!probe.ok) {
    throw new AppError(
      "TOOL_NOT_AVAILABLE",
      `exec refused: this session is sandboxed and the sandbox (bubblewrap) cannot start (${probe.reason}). Commands never run unsandboxed here; ask an admin to install bubblewrap (apt-get install bubblewrap).`,
    );
  }
  await prepareWorkspace(options.cwd);
  const argv = buildSandboxArgv({ command: options.command, workspaceDir: options.cwd, config });
  return runCommand({ ...options, argv, env: { PATH: process.env.PATH || SANDBOX_PATH, LANG: "C.UTF-8" } });
}
