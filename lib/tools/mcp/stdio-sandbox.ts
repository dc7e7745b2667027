// The argv a stdio MCP server runs under: bubblewrap, as an unprivileged uid of its own (when the app runs as
// root), in fresh namespaces (no network unless the admin allows it per server), with a read-only /usr, its own
// /proc, /dev and /tmp, and nothing of the app: not the app directory, not the data directory (auth secret,
// database), not the workspaces. What the server's command needs is bound read-only: an absolute command or
// argument path (the script) and the node_modules directory Node would resolve its imports from, plus paths the
// admin lists. The environment is cleared and holds only PATH, HOME, LANG and the admin's configured variables.
// The working directory is a private /tmp unless the admin names another (never the app or the data directory).
// A pid namespace with --die-with-parent means ending bwrap ends every process the server started, forked
// children included, even ones that left its process group.
import { createHash } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { EXEC_PATH } from "@/lib/exec/rules";
import { runAsPrefix, SANDBOX_UID } from "@/lib/tools/workspace-owner";
import { systemViewArgs } from "@/lib/tools/sandbox";
import { sandboxTagArgs } from "@/lib/tools/sandbox-reaper";

/** Server uids: MCP_UID_BASE .. MCP_UID_BASE + MCP_UID_RANGE - 1, below the workspace uids (200,000 up). */
export const MCP_UID_BASE = 150_000;
const MCP_UID_RANGE = 50_000;
const TMP_BYTES = 64 * 1024 * 1024;
// Files a networked server needs to resolve names and check certificates.
const NETWORK_ETC = ["resolv.conf", "hosts", "ssl", "ca-certificates", "gai.conf"];

export type StdioSandboxOptions = {
  command: string;
  args: readonly string[];
  env: Record<string, string>;
  cwd?: string;
  serverId: string;
  network: boolean;
  readOnlyPaths: readonly string[];
  writablePaths: readonly string[];
  /** Directories the server must never see: the app, its data, the workspaces. */
  forbidden: readonly string[];
  bwrapPath?: string;
};

/** A uid per server id, so two servers (and the workspaces' commands) cannot touch each other's processes. */
export function mcpServerUid(serverId: string): number {
  return MCP_UID_BASE + (createHash("sha256").update(serverId).digest().readUInt32BE(0) % MCP_UID_RANGE);
}

const within = (child: string, parent: string) =>
  child === parent || child.startsWith(parent.endsWith(path.sep) ? parent : parent + path.sep);

/** The node_modules directory Node resolves a file's bare imports from (nearest one above it), if any. */
function nodeModulesFor(file: string): string | undefined {
  const parts = file.split(path.sep);
  const index = parts.lastIndexOf("node_modules");
  if (index > 0) return parts.slice(0, index + 1).join(path.sep);
  for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, "node_modules");
    if (existsSync(candidate)) return candidate;
    if (path.dirname(dir) === dir) return undefined;
  }
}

function realOrNull(p: string): string | null {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
}

/**
 * The read-only binds a command needs, refusing any that would expose a forbidden directory. A bind may sit inside
 * the app directory (its node_modules, a script) but never contain a forbidden directory or lie in its data part.
 */
export function readOnlyBinds(
  options: Pick<StdioSandboxOptions, "command" | "args" | "readOnlyPaths" | "forbidden">,
): string[] {
  const wanted = new Set<string>();
  const candidates = [options.command, ...options.args].filter((arg) => path.isAbsolute(arg));
  for (const candidate of candidates) {
    const real = realOrNull(candidate);
    if (!real) continue;
    if (real.startsWith("/usr/")) continue;
    wanted.add(real);
    if (statSync(/*turbopackIgnore: true*/ real).isFile()) {
      const modules = nodeModulesFor(real);
      if (modules) wanted.add(realOrNull(modules) ?? modules);
    }
  }
  for (const extra of options.readOnlyPaths) {
    const real = realOrNull(extra);
    if (real) wanted.add(real);
  }
  const forbidden = options.forbidden.map((dir) => realOrNull(dir) ?? path.resolve(dir));
  const [appDir, ...secretDirs] = forbidden;
  for (const bind of wanted) {
    const exposes = forbidden.some((dir) => within(dir, bind)) || secretDirs.some((dir) => within(bind, dir));
    if (exposes)
      throw new Error(
        `the server would see ${bind}, which holds the app's directory, its data or the workspaces; bind a narrower path`,
      );
    if (appDir && within(bind, appDir) && !/\/node_modules(\/|$)/.test(bind) && statSync(bind).isDirectory()) {
      throw new Error(
        `the server would see the app's directory ${bind}; only files and node_modules inside it can be bound`,
      );
    }
  }
  return [...wanted];
}

/** Writable binds: never the app directory or anything in it, the data directory or the workspaces. */
export function writableBinds(options: Pick<StdioSandboxOptions, "writablePaths" | "forbidden">): string[] {
  const forbidden = options.forbidden.map((dir) => realOrNull(dir) ?? path.resolve(dir));
  return options.writablePaths.map((wanted) => {
    const real = realOrNull(wanted);
    if (!real) throw new Error(`its writable path ${wanted} does not exist`);
    if (forbidden.some((dir) => within(dir, real) || within(real, dir)))
      throw new Error(
        `its writable path ${wanted} is, holds or lies in the app's directory, its data or the workspaces`,
      );
    return real;
  });
}

export function buildStdioSandboxArgv(options: StdioSandboxOptions): { argv: string[]; env: Record<string, string> } {
  const writable = writableBinds(options);
  const binds = readOnlyBinds(options).filter((bind) => !writable.some((dir) => within(bind, dir)));
  const cwd = options.cwd ? (realOrNull(options.cwd) ?? options.cwd) : "/tmp";
  if (options.cwd) {
    const forbidden = options.forbidden.map((dir) => realOrNull(dir) ?? path.resolve(dir));
    if (forbidden.some((dir) => within(cwd, dir) || within(dir, cwd)))
      throw new Error(`its working directory ${options.cwd} is the app's directory, its data or a workspace`);
    if (!binds.includes(cwd)) binds.push(cwd);
  }
  const env: Record<string, string> = {
    PATH: EXEC_PATH,
    HOME: "/tmp",
    LANG: "C.UTF-8",
    TMPDIR: "/tmp",
    ...options.env,
  };
  const argv = [
    ...runAsPrefix(mcpServerUid(options.serverId)),
    options.bwrapPath ?? "bwrap",
    "--unshare-all",
    ...(options.network ? ["--share-net"] : []),
    "--unshare-user",
    "--uid",
    String(SANDBOX_UID),
    "--gid",
    String(SANDBOX_UID),
    "--disable-userns",
    "--die-with-parent",
    "--new-session",
    ...sandboxTagArgs(),
    "--cap-drop",
    "ALL",
    ...systemViewArgs(),
    ...(options.network ? NETWORK_ETC.flatMap((name) => ["--ro-bind-try", `/etc/${name}`, `/etc/${name}`]) : []),
    "--size",
    String(TMP_BYTES),
    "--tmpfs",
    "/tmp",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    ...binds.flatMap((bind) => ["--ro-bind", bind, bind]),
    ...writable.flatMap((bind) => ["--bind", bind, bind]),
    "--remount-ro",
    "/",
    "--chdir",
    cwd,
    "--clearenv",
    ...Object.entries(env).flatMap(([key, value]) => ["--setenv", key, value]),
    "--",
    options.command,
    ...options.args,
  ];
  return { argv, env: { PATH: EXEC_PATH, LANG: "C.UTF-8" } };
}
