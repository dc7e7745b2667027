// Every exec runs in bubblewrap (bwrap): a read-only /usr (plus the few /etc files programs need), its own /proc,
// /dev and a small empty /tmp, no network (a fresh, empty network namespace), no further user namespaces, a
// clean environment, and exactly one writable place: the user's workspace, bound at its real path. Inside,
// prlimit caps CPU time, address space, processes and file size; runCommand caps wall time and output. The
// sandbox dies with the server (--die-with-parent, and its own process group). A server running as root never
// runs a command as root: bwrap is started as an unprivileged uid that owns the workspace (lib/tools/workspace-owner.ts).
// Running on the host instead is an admin's explicit setting (exec.host), and even then never as root.
// When bwrap cannot start, exec is refused: it never falls back to running unsandboxed.
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import path from "node:path";
import { AppError } from "@/lib/errors";
import { EXEC_PATH } from "@/lib/exec/rules";
import { cgroupJoinArgv } from "./cgroups";
import { runCommand, type RunCommandOptions, type RunCommandResult } from "./exec-runner";
import { sandboxTagArgs } from "./sandbox-reaper";
import { runAsPrefix, SANDBOX_UID, workspaceUid } from "./workspace-owner";

export type SandboxLimits = {
  /** RLIMIT_CPU: a busy loop is killed after this much CPU time. */
  cpuSeconds: number;
  /** RLIMIT_AS per process. */
  memoryBytes: number;
  /** RLIMIT_NPROC: counted for the unprivileged uid, so a fork bomb stops here. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: the largest file a command may write. */
  fileBytes: number;
  /** Size of the sandbox's private /tmp. */
  tmpBytes: number;
};

export type SandboxConfig = {
  /** bwrap binary; tests point it at a missing path to prove the fail-closed refusal. */
  bwrapPath?: string;
  limits?: Partial<SandboxLimits>;
  /** Keep the repository's own diff.external (see commandEnvironment); sandboxed commands only. */
  externalDiff?: boolean;
  /** The member's control groups the command joins before anything else runs (lib/tools/cgroups.ts). */
  cgroups?: readonly string[];
  /** What is bound at the workspace's path: the workspace itself, or a command's overlay (workspace-changes.ts). */
  workspaceSource?: string;
  /** Paths inside the workspace bound read-only over its writable bind (repository metadata, see exec.ts). */
  readOnlyPaths?: readonly string[];
  /** This command's egress proxy socket (egress-proxy.ts): bound into this sandbox only, bridged by socat inside. */
  egress?: { socketPath: string };
};

/** Where the proxy socket appears inside, and the loopback port socat serves it on (the sandbox's own namespace). */
export const EGRESS_SOCKET_INSIDE = "/run/toolgate-egress.sock";
export const EGRESS_PORT = 3128;
export const SOCAT_PATH = "/usr/bin/socat";
// socat in the background, then wait (bounded) until it listens, then the command itself as "$1". The wait reads
// /proc/net/tcp (127.0.0.1:3128, state LISTEN) so the command's first request never races socat's start.
const EGRESS_SHIM = [
  `${SOCAT_PATH} TCP-LISTEN:${EGRESS_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${EGRESS_SOCKET_INSIDE} 2>/dev/null &`,
  `i=0; while [ $i -lt 1000 ] && ! grep -q ' 0100007F:${EGRESS_PORT.toString(16).toUpperCase().padStart(4, "0")} 00000000:0000 0A' /proc/net/tcp 2>/dev/null; do i=$((i+1)); sleep 0.01; done`,
  'exec /bin/sh -c "$1"',
].join("\n");

function egressEnv(): Record<string, string> {
  const proxy = `http://127.0.0.1:${EGRESS_PORT}`;
  return { HTTP_PROXY: proxy, HTTPS_PROXY: proxy, http_proxy: proxy, https_proxy: proxy, NO_PROXY: "", no_proxy: "" };
}

export const DEFAULT_SANDBOX_LIMITS: Readonly<SandboxLimits> = Object.freeze({
  cpuSeconds: 10,
  memoryBytes: 1024 * 1024 * 1024,
  maxProcesses: 64,
  fileBytes: 64 * 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
});

export const INSTALL_BUBBLEWRAP =
  "ask an admin to install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap)";

// The files under /etc that ordinary programs read (dynamic linker, alternatives symlinks, names, time zone).
const ETC_FILES = [
  "alternatives",
  "ld.so.cache",
  "ld.so.conf",
  "ld.so.conf.d",
  "localtime",
  "passwd",
  "group",
  "nsswitch.conf",
];
// Merged-/usr systems have these as symlinks into /usr; older ones as real directories.
const TOP_LEVEL = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/**
 * Configuration that git reads from the environment overrides the workspace's own .git/config: hooks, fsmonitor,
 * pager, editor and ssh command from a repository the user wrote cannot run when an owner approved `git status`.
 */
const GIT_NEUTRALISED: ReadonlyArray<[string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.sshCommand", "false"],
  ["core.askPass", ""],
  ["credential.helper", ""],
  // Programs a repository's config could name for read-only commands: an external diff (log -p --ext-diff) and
  // signature checks (log --show-signature, tag -v). Empty / false: git refuses or reports, and runs nothing.
  ["diff.external", ""],
  ["gpg.program", "false"],
  ["gpg.openpgp.program", "false"],
  ["gpg.x509.program", "false"],
  ["gpg.ssh.program", "false"],
  // A workspace laid out as a bare repository (HEAD, objects/, refs/, config written with the file tools) is
  // never picked up by discovery: only a .git directory, which the file tools do not write, is.
  ["safe.bareRepository", "explicit"],
];

/**
 * The whole environment a command sees (sandboxed or on the host): nothing of the server's. `externalDiff`
 * keeps a repository's own diff.external: an empty one makes plain `git diff` fail ("external diff died"), so it
 * is switched off only where a program the member named must not run unseen (on the host, or for a command no
 * owner approved in allowlist mode); in the sandbox otherwise it runs there like any of the member's code.
 */
export function commandEnvironment(
  workspaceDir: string,
  { externalDiff = false }: { externalDiff?: boolean } = {},
): Record<string, string> {
  const neutralised = externalDiff ? GIT_NEUTRALISED.filter(([key]) => key !== "diff.external") : GIT_NEUTRALISED;
  const env: Record<string, string> = {
    PATH: EXEC_PATH,
    HOME: workspaceDir,
    LANG: "C.UTF-8",
    TMPDIR: "/tmp",
    PAGER: "cat",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    // git never looks for a repository above the workspace.
    GIT_CEILING_DIRECTORIES: path.dirname(workspaceDir),
    GIT_CONFIG_COUNT: String(neutralised.length),
  };
  neutralised.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

function limitsOf(config: SandboxConfig): SandboxLimits {
  return { ...DEFAULT_SANDBOX_LIMITS, ...config.limits };
}

function prlimitArgs(limits: SandboxLimits): string[] {
  return [
    "/usr/bin/prlimit",
    `--cpu=${limits.cpuSeconds}`,
    `--as=${limits.memoryBytes}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.fileBytes}`,
    "--",
  ];
}

/** The read-only system part of a sandbox (also used by stdio MCP servers, lib/tools/mcp/stdio-sandbox.ts). */
export function systemViewArgs(): string[] {
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
export function buildSandboxArgv({
  command,
  workspaceDir,
  config = {},
  uid,
}: {
  command: string;
  workspaceDir: string;
  config?: SandboxConfig;
  uid?: number;
}): string[] {
  const limits = limitsOf(config);
  const egress = config.egress;
  const variables = {
    ...commandEnvironment(workspaceDir, { externalDiff: config.externalDiff === true }),
    ...(egress ? egressEnv() : {}),
  };
  const env = Object.entries(variables).flatMap(([k, v]) => ["--setenv", k, v]);
  return [
    ...runAsPrefix(uid),
    config.bwrapPath ?? "bwrap",
    "--unshare-all",
    "--unshare-user",
    // The workspace's own uid outside (see workspace-owner.ts) is nobody inside, where passwd knows it.
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    // Nothing inside may build a namespace of its own (the usual first step of a sandbox escape).
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    // Which server started it, so a sandbox that outlived its server is found at the next start (sandbox-reaper.ts).
    ...sandboxTagArgs(),
    "--cap-drop",
    "ALL",
    ...systemViewArgs(),
    // /tmp first: a workspace under /tmp is then bound on top of the fresh tmpfs instead of hidden by it.
    "--size",
    String(limits.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    // --dev is a tmpfs as large as half the host's memory: /dev/shm gets a capped tmpfs of its own and /dev itself
    // becomes read-only (device nodes such as /dev/null stay writable), so no memory hides there.
    "--size",
    String(limits.tmpBytes),
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    "--bind",
    config.workspaceSource ?? workspaceDir,
    workspaceDir,
    ...(config.readOnlyPaths ?? []).flatMap((p) => ["--ro-bind", p, p]),
    ...(egress ? ["--bind", egress.socketPath, EGRESS_SOCKET_INSIDE] : []),
    // The root bwrap builds is a writable tmpfs; make it read-only (submounts such as the workspace keep theirs).
    "--remount-ro",
    "/",
    "--chdir",
    workspaceDir,
    "--clearenv",
    ...env,
    "--",
    ...prlimitArgs(limits),
    "/bin/sh",
    "-c",
    ...(egress ? [EGRESS_SHIM, "toolgate-egress", command] : [command]),
  ];
}

const probes = new Map<string, Promise<{ ok: true } | { ok: false; reason: string }>>();

/** Whether bwrap can start here with the options every command uses; probed once per binary. */
export function probeSandbox(config: SandboxConfig = {}): Promise<{ ok: true } | { ok: false; reason: string }> {
  const bwrap = config.bwrapPath ?? "bwrap";
  let probe = probes.get(bwrap);
  if (!probe) {
    const argv = [
      ...runAsPrefix(),
      bwrap,
      "--unshare-all",
      "--unshare-user",
      "--disable-userns",
      "--die-with-parent",
      "--ro-bind",
      "/",
      "/",
      "/usr/bin/prlimit",
      "--nproc=8",
      "true",
    ];
    probe = runCommand({
      command: "true",
      cwd: "/",
      timeoutMs: 10_000,
      maxOutputBytes: 4096,
      argv,
      env: { PATH: EXEC_PATH },
    })
      .then((r) =>
        r.exitCode === 0
          ? { ok: true as const }
          : { ok: false as const, reason: (r.stderr || `exit ${r.exitCode ?? r.signal}`).trim() },
      )
      .catch((error: unknown) => ({
        ok: false as const,
        reason: error instanceof Error ? error.message : String(error),
      }));
    probes.set(bwrap, probe);
  }
  return probe;
}

/** Runs one command in the sandbox, or refuses with TOOL_NOT_AVAILABLE when bwrap cannot start. */
export async function runSandboxedCommand(
  options: Omit<RunCommandOptions, "argv" | "env">,
  config: SandboxConfig = {},
): Promise<RunCommandResult> {
  const probe = await probeSandbox(config);
  if (!probe.ok) {
    throw new AppError(
      "TOOL_NOT_AVAILABLE",
      `exec refused: the sandbox (bubblewrap) cannot start, and commands never run unsandboxed; ${INSTALL_BUBBLEWRAP}.`,
      {
        probe: probe.reason.slice(0, 200),
      },
    );
  }
  const argv = cgroupJoinArgv(
    config.cgroups ?? [],
    buildSandboxArgv({
      command: options.command,
      workspaceDir: options.cwd,
      config,
      uid: await workspaceUid(options.cwd),
    }),
  );
  const result = await runCommand({ ...options, argv, env: { PATH: EXEC_PATH, LANG: "C.UTF-8" } });
  if (result.exitCode === 1 && /^bwrap: Can't find source path .*Permission denied/m.test(result.stderr)) {
    throw new AppError(
      "TOOL_NOT_AVAILABLE",
      "exec refused: the sandbox user cannot reach the workspace; an admin must make the directories above WORKSPACE_ROOT searchable (chmod o+x) or choose another WORKSPACE_ROOT.",
    );
  }
  return result;
}

/** Host execution (an admin's exec.host setting): no namespaces, but the same uid, limits and clean environment. */
export async function runHostCommand(
  options: Omit<RunCommandOptions, "argv" | "env">,
  config: SandboxConfig = {},
): Promise<RunCommandResult> {
  const argv = cgroupJoinArgv(config.cgroups ?? [], [
    ...runAsPrefix(await workspaceUid(options.cwd)),
    ...prlimitArgs(limitsOf(config)),
    "/bin/sh",
    "-c",
    options.command,
  ]);
  return runCommand({ ...options, argv, env: commandEnvironment(options.cwd) });
}
