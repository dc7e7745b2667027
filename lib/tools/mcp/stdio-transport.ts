import "server-only";
// The stdio transport for untrusted servers: the SDK's framing (ReadBuffer, capped per message), but the process
// is started by us, in the sandbox (stdio-sandbox.ts), in a process group of its own, and closing it ends the whole
// group: stdin closed, then SIGTERM to the group, then SIGKILL. bwrap's pid namespace ends whatever is left
// (a child that called setsid) when bwrap itself goes.
import { spawn, type ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { ReadBuffer, serializeMessage } from "@modelcontextprotocol/sdk/shared/stdio.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

const GRACE_MS = 1000;

export type SpawnSpec = { argv: string[]; env: Record<string, string> };

/** The group outlives its leader while any member lives (the pgid cannot be reused meanwhile). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // ESRCH: nothing is left in the group
  }
}

export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private child: ChildProcess | undefined;
  private readonly buffer: ReadBuffer;
  readonly stderr = new PassThrough();

  constructor(
    private readonly spec: () => SpawnSpec,
    maxMessageBytes: number,
  ) {
    this.buffer = new ReadBuffer({ maxBufferSize: maxMessageBytes });
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(): Promise<void> {
    if (this.child) throw new Error("already started");
    const { argv, env } = this.spec();
    const [file, ...args] = argv;
    if (!file) throw new Error("nothing to run");
    return new Promise((resolve, reject) => {
      // detached: a process group (and session) of its own, so the whole group can be ended at once.
      const child = spawn(file, args, {
        env: env as NodeJS.ProcessEnv,
        stdio: ["pipe", "pipe", "pipe"],
        detached: true,
        cwd: "/",
      });
      this.child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => {
        // Whatever the server forked and left in its group goes with it.
        killGroup(child, "SIGKILL");
        if (this.child === child) this.child = undefined;
        this.onclose?.();
      });
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => {
        try {
          this.buffer.append(chunk);
        } catch (error) {
          // Over the per-message cap: the server is not allowed to make us hold more.
          this.onerror?.(error as Error);
          void this.close();
          return;
        }
        for (;;) {
          let message: JSONRPCMessage | null;
          try {
            message = this.buffer.readMessage();
          } catch (error) {
            this.onerror?.(error as Error);
            continue;
          }
          if (message === null) break;
          this.onmessage?.(message);
        }
      });
      child.stderr?.pipe(this.stderr);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin) throw new Error("Not connected");
    if (!stdin.write(serializeMessage(message))) await new Promise<void>((resolve) => stdin.once("drain", resolve));
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.buffer.clear();
    if (!child) return;
    const closed = new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("close", () => resolve());
    });
    const wait = (ms: number) =>
      Promise.race([closed, new Promise<void>((resolve) => setTimeout(resolve, ms).unref())]);
    try {
      child.stdin?.end();
    } catch {
      // the pipe is already broken
    }
    killGroup(child, "SIGTERM");
    await wait(GRACE_MS);
    killGroup(child, "SIGKILL");
    await wait(GRACE_MS);
  }
}
