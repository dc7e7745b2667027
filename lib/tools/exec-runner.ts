// Runs one shell command as its own process group so that timeouts, aborts and the command's own exit
// take down everything it started (background jobs included): exec is one-shot, nothing may outlive it.
// A sandbox wraps it by passing its own argv (e.g. bwrap ... /bin/sh -c command).
import { spawn } from "node:child_process";
import { AppError } from "@/lib/errors";

export type RunCommandOptions = {
  command: string;
  cwd: string;
  timeoutMs: number;
  /** Cap per stream (stdout and stderr each); the rest is drained and dropped. */
  maxOutputBytes: number;
  abortSignal?: AbortSignal;
  /** Program and arguments to spawn; defaults to ["/bin/sh", "-c", command]. */
  argv?: string[];
  /** Full environment; defaults to a minimal one (PATH, HOME = cwd, LANG). */
  env?: Record<string, string>;
  /** Told the process group id once spawned (the run records it, so a crashed server's command can be killed). */
  onSpawn?: (pid: number) => void;
};

export type RunCommandResult = {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  aborted: boolean;
  truncated: boolean;
  durationMs: number;
};

const DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
// After the main process exits, how long to wait for pipes held by already-killed stragglers to close.
const DRAIN_GRACE_MS = 2_000;

export function minimalEnv(cwd: string): Record<string, string> {
  return { PATH: process.env.PATH || DEFAULT_PATH, HOME: cwd, LANG: "C.UTF-8" };
}

class CappedBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;
  constructor(private readonly cap: number) {}
  push(chunk: Buffer) {
    const room = this.cap - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(kept);
    this.size += kept.length;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

function killGroup(pid: number | undefined) {
  if (pid === undefined) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function runCommand(options: RunCommandOptions): Promise<RunCommandResult> {
  const argv = options.argv ?? ["/bin/sh", "-c", options.command];
  const [program, ...args] = argv;
  if (!program) return Promise.reject(new AppError("INVALID_ARGUMENTS", "empty argv"));
  if (options.abortSignal?.aborted) {
    return Promise.reject(new AppError("TOOL_FAILED", "command aborted before it started"));
  }

  return new Promise((resolve, reject) => {
    const started = performance.now();
    const stdout = new CappedBuffer(options.maxOutputBytes);
    const stderr = new CappedBuffer(options.maxOutputBytes);
    let timedOut = false;
    let aborted = false;
    let exit: { code: number | null; signal: string | null } | null = null;
    let openStreams = 2;
    let settled = false;

    const child = spawn(/*turbopackIgnore: true*/ program, args, {
      cwd: /*turbopackIgnore: true*/ options.cwd,
      // Next's typings make NODE_ENV required on ProcessEnv; the child deliberately gets no NODE_ENV.
      env: (options.env ?? minimalEnv(options.cwd)) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid !== undefined) options.onSpawn?.(child.pid);

    const timer = setTimeout(
      () => {
        timedOut = true;
        killGroup(child.pid);
      },
      Math.max(1, options.timeoutMs),
    );
    const onAbort = () => {
      aborted = true;
      killGroup(child.pid);
    };
    options.abortSignal?.addEventListener("abort", onAbort, { once: true });
    let drainTimer: NodeJS.Timeout | undefined;

    const finish = () => {
      if (settled || !exit) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(drainTimer);
      options.abortSignal?.removeEventListener("abort", onAbort);
      // A process that escaped the group may still hold the pipes; stop listening to it.
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        exitCode: exit.code,
        signal: exit.signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        timedOut,
        aborted,
        truncated: stdout.truncated || stderr.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    };

    child.stdout.on("data", (c: Buffer) => stdout.push(c));
    child.stderr.on("data", (c: Buffer) => stderr.push(c));
    for (const stream of [child.stdout, child.stderr]) {
      stream.on("close", () => {
        openStreams -= 1;
        if (openStreams === 0) finish();
      });
    }
    child.on("error", (err) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.abortSignal?.removeEventListener("abort", onAbort);
      reject(new AppError("TOOL_FAILED", `could not start ${program}: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Background jobs of the command still hold our pipes; end them so the call returns now.
      killGroup(child.pid);
      if (openStreams === 0) finish();
      else drainTimer = setTimeout(finish, DRAIN_GRACE_MS);
    });
  });
}
