// Sandboxes a dead server left running. bwrap's --die-with-parent ends a sandbox with the server that started it,
// but only once bwrap has set it up: a server killed between its spawn and that moment leaves a bwrap whose parent is
// already gone (and with it the command, its socat egress bridge and the overlay it keeps busy), and the egress
// proxy's socket directory under the temporary directory stays too. So every sandbox carries a tag naming the
// server that started it (its pid and the kernel's start time of that pid, so a pid handed to another process later
// is not mistaken for it) and the workspace root it serves; the egress directories carry the same. At start a server
// kills the sandboxes whose server is gone and removes their egress directories: only those of its own workspace root
// and host, and never one whose server still runs (another instance may serve the same root at the same time).
// The tag is a no-op bwrap argument (--unsetenv of a variable nobody sets): nothing of it reaches the command's
// environment.
import { createHash } from "node:crypto";
import { realpathSync } from "node:fs";
import { readdir, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { processSlots } from "@/lib/process-singleton";
import { processStartTime } from "./overlay-journal";

export type ServerIdentity = { pid: number; startTime: string };

const TAG = /^toolgate-sandbox-([0-9a-f]{12})-(\d+)-(\d+)$/;
const EGRESS_DIR = /^toolgate-egress-([0-9a-f]{12})-(\d+)-(\d+)-/;

const globalForReaper = processSlots<{ toolgateSandboxScope?: string }>();

/** Host and workspace root, hashed: the tag's scope (a reaping server touches only its own). */
export function sandboxScope(workspaceRoot: string): string {
  let root = path.resolve(workspaceRoot);
  try {
    root = realpathSync(/*turbopackIgnore: true*/ root);
  } catch {
    // not created yet: the path as configured
  }
  return createHash("sha256").update(`${os.hostname()}\0${root}`).digest("hex").slice(0, 12);
}

/** Called once at start (lib/startup.ts): the sandboxes this server starts from now on are tagged with its root. */
export function claimSandboxScope(workspaceRoot: string): void {
  globalForReaper.toolgateSandboxScope = sandboxScope(workspaceRoot);
}

function self(): ServerIdentity {
  return { pid: process.pid, startTime: processStartTime(process.pid) ?? "0" };
}

function tagOf(server: ServerIdentity, scope: string): string {
  return `${scope}-${server.pid}-${server.startTime}`;
}

/** The bwrap arguments that tag a sandbox as this server's (or, for tests, as `server`'s in `scope`). */
export function sandboxTagArgs({
  server = self(),
  scope = globalForReaper.toolgateSandboxScope ?? sandboxScope(""),
}: { server?: ServerIdentity; scope?: string } = {}): string[] {
  return ["--unsetenv", `toolgate-sandbox-${tagOf(server, scope)}`];
}

/** The name prefix of this server's egress socket directories under the temporary directory. */
export function egressDirPrefix({
  server = self(),
  scope = globalForReaper.toolgateSandboxScope ?? sandboxScope(""),
}: { server?: ServerIdentity; scope?: string } = {}): string {
  return `toolgate-egress-${tagOf(server, scope)}-`;
}

/** Whether the tagged server is gone: not this process, and its pid is no longer the process it was. */
function serverGone(pid: string, startTime: string): boolean {
  const me = self();
  if (Number(pid) === me.pid && startTime === me.startTime) return false;
  return processStartTime(Number(pid)) !== startTime;
}

async function taggedSandboxes(scope: string): Promise<number[]> {
  const found: number[] = [];
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const argv = (await readFile(`/proc/${name}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (path.basename(argv[0] ?? "") !== "bwrap") continue;
    const at = argv.findIndex((arg, i) => i > 0 && argv[i - 1] === "--unsetenv" && TAG.test(arg));
    const match = at > 0 ? TAG.exec(argv[at]!) : null;
    if (match && match[1] === scope && serverGone(match[2]!, match[3]!)) found.push(Number(name));
  }
  return found;
}

/** Still running: present and not a zombie (a killed one whose parent has not collected it yet is gone enough). */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  return stat !== null && stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z";
}

export type Reaped = { sandboxes: number; egressDirs: number };

/**
 * Kills the sandboxes (outer and inner bwrap: the inner one is its pid namespace's init, so everything in it dies
 * with it) and removes the egress directories that a gone server of this root left; waits until the killed ones
 * are gone, so the layer recovery that follows finds their overlays no longer busy.
 */
export async function reapOrphanedSandboxes(
  workspaceRoot: string,
  { deadlineMs = 5_000 }: { deadlineMs?: number } = {},
): Promise<Reaped> {
  const scope = sandboxScope(workspaceRoot);
  const pids = await taggedSandboxes(scope);
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone already
    }
  }
  for (
    const deadline = Date.now() + deadlineMs;
    (await Promise.all(pids.map(running))).some(Boolean) && Date.now() < deadline;
  )
    await new Promise((r) => setTimeout(r, 50));
  let egressDirs = 0;
  for (const name of await readdir(os.tmpdir()).catch(() => [] as string[])) {
    const match = EGRESS_DIR.exec(name);
    if (!match || match[1] !== scope || !serverGone(match[2]!, match[3]!)) continue;
    await rm(path.join(os.tmpdir(), name), { recursive: true, force: true });
    egressDirs += 1;
  }
  return { sandboxes: pids.length, egressDirs };
}
